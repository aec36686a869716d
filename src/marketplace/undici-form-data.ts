// undici's FormData, in a module of its own so that it loads with the first image upload (images.ts imports it
// when it runs): undici's index is large, and most runs upload nothing.
export { FormData } from 'undici';
