/**
 * The transparency-dev/merkle proof vectors (RFC 9162 inclusion and consistency, and MTC subtree
 * proofs): every valid case verifies and every `wantErr` case is rejected. The vectors are a copy
 * kept in merkle-core/testdata (see its README for where they come from).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fromBase64 } from '../encoding/bytes';
import type { Verdict } from './verdict';
import {
  verifyConsistency,
  verifyInclusion,
  verifySubtreeConsistency,
  verifySubtreeInclusion,
} from './verify';

const VECTORS = path.resolve(__dirname, '../testdata/rfc6962-proofs');

interface Vector {
  file: string;
  data: Record<string, unknown>;
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? walk(full) : name.endsWith('.json') ? [full] : [];
  });
}

function load(kind: string): Vector[] {
  return walk(path.join(VECTORS, kind))
    .sort()
    .map((file) => ({ file: path.relative(VECTORS, file), data: JSON.parse(readFileSync(file, 'utf8')) }));
}

const b64 = (value: unknown): Uint8Array => fromBase64(typeof value === 'string' ? value : '');
const proofOf = (value: unknown): Uint8Array[] => (Array.isArray(value) ? value.map(b64) : []);

const verifiers: Record<string, (d: Record<string, unknown>) => Verdict> = {
  inclusion: (d) =>
    verifyInclusion(
      d.leafIdx as number,
      d.treeSize as number,
      b64(d.leafHash),
      proofOf(d.proof),
      b64(d.root),
    ),
  consistency: (d) =>
    verifyConsistency(d.size1 as number, d.size2 as number, proofOf(d.proof), b64(d.root1), b64(d.root2)),
  subtreeinclusion: (d) =>
    verifySubtreeInclusion(
      d.leafIdx as number,
      d.start as number,
      d.end as number,
      b64(d.leafHash),
      proofOf(d.proof),
      b64(d.root),
    ),
  subtreeconsistency: (d) =>
    verifySubtreeConsistency(
      d.start as number,
      d.end as number,
      d.size as number,
      proofOf(d.proof),
      b64(d.root1),
      b64(d.root2),
    ),
};

const kinds = readdirSync(VECTORS).filter((k) => statSync(path.join(VECTORS, k)).isDirectory());

describe('RFC 9162 proof vectors', () => {
  it('covers every vector folder with a verifier', () => {
    expect(kinds.filter((k) => !(k in verifiers))).toEqual([]);
    expect([...kinds].sort()).toEqual(['consistency', 'inclusion', 'subtreeconsistency', 'subtreeinclusion']);
  });

  for (const kind of kinds) {
    const vectors = load(kind);
    const verify = verifiers[kind];
    if (!verify) continue;
    describe(kind, () => {
      it('has both accepting and rejecting cases', () => {
        expect(vectors.some((v) => v.data.wantErr === false)).toBe(true);
        expect(vectors.some((v) => v.data.wantErr === true)).toBe(true);
      });
      it.each(vectors.map((v) => [v.file, v] as const))('%s', (_name, vector) => {
        const verdict = verify(vector.data);
        expect({ file: vector.file, ok: verdict.ok }).toEqual({
          file: vector.file,
          ok: !vector.data.wantErr,
        });
      });
    });
  }
});
