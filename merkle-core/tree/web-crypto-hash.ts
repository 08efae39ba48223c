/** RFC 9162 hashing with WebCrypto (crypto.subtle), for browsers: asynchronous, no Node APIs. */

/** Copies into a fresh ArrayBuffer-backed array, which is what WebCrypto's typings accept. */
export function webCryptoBytes(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  const copy = new Uint8Array(bytes.length);
  copy.set(bytes);
  return copy;
}

export async function webSha256(data: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', webCryptoBytes(data)));
}

/** RFC 9162 leaf hash SHA-256(0x00 ‖ data). */
export async function webLeafHash(data: Uint8Array): Promise<Uint8Array> {
  const message = new Uint8Array(1 + data.length);
  message.set(data, 1);
  return webSha256(message);
}

/** SHA-256(0x01 ‖ left ‖ right). */
export async function webHashChildren(left: Uint8Array, right: Uint8Array): Promise<Uint8Array> {
  const message = new Uint8Array(1 + left.length + right.length);
  message[0] = 0x01;
  message.set(left, 1);
  message.set(right, 1 + left.length);
  return new Uint8Array(await crypto.subtle.digest('SHA-256', message));
}
