/** encoding: bytes (hex, base64, UTF-8), exact bit arithmetic, RFC 8785 canonical JSON; imports no package. */
export { bytesEqual, fromBase64, fromHex, toBase64, toHex, utf8 } from './bytes';
export { canonicalJson } from './canonical-json';
export type { MaybePromise } from './maybe-promise';
