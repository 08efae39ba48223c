import { createHmac } from 'node:crypto';
import { verify } from '@octokit/webhooks-methods';
import { signatureHeader, verifySignatureHeader } from './signature';

const secret = 'whsec_test-secret';
const body = JSON.stringify({ event_id: 'evt_1', type: 'gov.envelope.published', note: 'naïve – ✓' });

describe('delivery signature (X-GOV-Signature-256)', () => {
  it('given a body, then the header is sha256= and the lowercase hex HMAC-SHA256 of its bytes under the secret', () => {
    const expected = createHmac('sha256', secret).update(Buffer.from(body, 'utf8')).digest('hex');
    expect(signatureHeader(secret, body)).toBe(`sha256=${expected}`);
    expect(signatureHeader(secret, Buffer.from(body, 'utf8'))).toBe(`sha256=${expected}`);
    expect(signatureHeader(secret, body)).toMatch(/^sha256=[0-9a-f]{64}$/);
  });

  it('given a signed body, when a receiver checks it with @octokit/webhooks-methods, then it verifies', async () => {
    await expect(verify(secret, body, signatureHeader(secret, Buffer.from(body)))).resolves.toBe(true);
  });

  it('given a signed body, when we check it ourselves, then it verifies', () => {
    expect(verifySignatureHeader(secret, body, signatureHeader(secret, body))).toBe(true);
    expect(verifySignatureHeader(secret, Buffer.from(body), signatureHeader(secret, body))).toBe(true);
  });

  it('given a tampered body, then neither check accepts the signature', async () => {
    const header = signatureHeader(secret, body);
    const tampered = body.replace('evt_1', 'evt_2');
    expect(verifySignatureHeader(secret, tampered, header)).toBe(false);
    await expect(verify(secret, tampered, header)).resolves.toBe(false);
  });

  it('given the wrong secret, then neither check accepts the signature', async () => {
    const header = signatureHeader(secret, body);
    expect(verifySignatureHeader('whsec_other', body, header)).toBe(false);
    await expect(verify('whsec_other', body, header)).resolves.toBe(false);
  });

  it.each([
    ['missing', undefined],
    ['null', null],
    ['empty', ''],
    ['without the sha256= prefix', signatureHeader(secret, body).slice('sha256='.length)],
    ['sha1=', signatureHeader(secret, body).replace('sha256=', 'sha1=')],
    ['truncated', signatureHeader(secret, body).slice(0, -2)],
    ['too long', `${signatureHeader(secret, body)}00`],
    ['uppercase hex', signatureHeader(secret, body).toUpperCase().replace('SHA256=', 'sha256=')],
    ['not hex', `sha256=${'zz'.repeat(32)}`],
    ['with trailing space', `${signatureHeader(secret, body)} `],
  ])('given a %s header, then verification is false without throwing', (_name, header) => {
    expect(verifySignatureHeader(secret, body, header)).toBe(false);
  });
});
