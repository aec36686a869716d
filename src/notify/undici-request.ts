// undici's request, in a module of its own so that it loads with the first webhook (webhook-notifier.ts imports it
// when it sends): undici's index is large, and most runs send none.
export { request } from 'undici';
