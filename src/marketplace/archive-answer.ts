// The answer of DELETE /{kind}/{identifier}, which archives: documented for accounts as {success, archived};
// an item or top-up DELETE (not in the document) may answer otherwise.
import { DecodeError, decodeString, isRecord } from './decode.ts';

/** `{success, archived}`; an empty 204 or an echoed offer with status archived say the same. */
export function decodeArchive(body: unknown): { readonly archived: boolean } {
  if (body === undefined) return { archived: true };
  const o = isRecord(body) && body.id === undefined && isRecord(body.data) ? body.data : body;
  if (!isRecord(o)) throw new DecodeError('archive answer is not a JSON object');
  if (typeof o.archived === 'boolean') return { archived: o.archived };
  if (typeof o.success === 'boolean') return { archived: o.success };
  const status = decodeString(o.status);
  if (status !== undefined) return { archived: status === 'archived' };
  throw new DecodeError('archive answer says neither archived, success nor status');
}
