import fc from 'fast-check';
import { fromHex, toHex } from './bytes';

describe('hex', () => {
  it('given any bytes, then toHex writes what Node writes and fromHex reads it back', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), (bytes) => {
        const text = toHex(bytes);
        expect(text).toBe(Buffer.from(bytes).toString('hex'));
        expect(fromHex(text)).toEqual(bytes);
        expect(fromHex(text.toUpperCase())).toEqual(bytes);
      }),
    );
  });

  it('given the empty string, then no bytes', () => {
    expect(fromHex('')).toEqual(new Uint8Array(0));
  });

  it.each([
    ['an odd length', 'abc'],
    ['a letter past f', '0g'],
    ['a sign', '+1'],
    ['a space', '0 '],
    ['a character past ASCII whose low byte is a digit', 'a\u0130'],
    ['a full-width digit', '\uff10\uff11'],
  ])('given %s, then fromHex refuses it', (_, text) => {
    expect(() => fromHex(text)).toThrow('hex: invalid string');
  });
});
