// The key of an offer across catalogue, state and marketplace, defined with the catalogue's identity rule.
export { type OfferKey, offerKey } from '../catalogue/identity.ts';
