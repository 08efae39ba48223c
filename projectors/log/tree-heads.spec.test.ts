/**
 * Specifications of the tree heads projection: given signed tree heads and witness cosignatures, then
 * the `tree_heads` documents that GET /gov/v1/log/sth?tree_size=N and the checkpoint routes read.
 */

import { SHARED_LOG_NAME } from '../../domain/log';
import type { TreeHeadSigned, WitnessCosigned } from '../../event-schemas';
import { ProjectionSpecification, type SpecEvent } from '../engine/projection-spec';
import { TREE_HEADS, type TreeHeadView, treeHeadId, treeHeadsProjection } from './tree-heads';

const given = ProjectionSpecification.for(treeHeadsProjection);

const ORIGIN = 'gov.example/gov/v1/log';
const WITNESS_A = 'witness-a+0a0a0a0a+AQ==';
const WITNESS_B = 'witness-b+0b0b0b0b+AQ==';
const root = (size: number) => String(size % 10).repeat(64);
const timestamp = (size: number) => `2026-03-01T10:00:${String(size).padStart(2, '0')}.000Z`;
const checkpoint = (size: number) => `${ORIGIN}\n${size}\nroot-of-${size}\n\n— ${ORIGIN} signature-${size}\n`;

/** A head of the shared log, written before there were many logs (no `log` member), or of `log`. */
function signed(size: number, firstLeafIndex = 0, leafPositions: number[] = [], log?: string): SpecEvent {
  const data: TreeHeadSigned & { log?: string } = {
    ...(log === undefined ? {} : { log }),
    origin: ORIGIN,
    tree_size: size,
    root_hash: root(size),
    timestamp: timestamp(size),
    checkpoint: checkpoint(size),
    first_leaf_index: firstLeafIndex,
    leaf_positions: leafPositions,
  };
  return { type: 'TreeHeadSigned', data };
}

function cosigned(size: number, witnessKey: string, time: number, log?: string): SpecEvent {
  const data: WitnessCosigned & { log?: string } = {
    ...(log === undefined ? {} : { log }),
    origin: ORIGIN,
    tree_size: size,
    root_hash: root(size),
    witness_key: witnessKey,
    timestamp: time,
    cosignature: `— ${witnessKey.split('+')[0]} cosignature-${size}-${time}\n`,
  };
  return { type: 'WitnessCosigned', data };
}

const head = (
  size: number,
  cosignatures: TreeHeadView['cosignatures'] = [],
  log = SHARED_LOG_NAME,
): TreeHeadView => ({
  log,
  tree_size: size,
  timestamp: timestamp(size),
  checkpoint: checkpoint(size),
  cosignatures,
});

const cosignature = (size: number, witnessKey: string, time: number) => ({
  witness_key: witnessKey,
  timestamp: time,
  line: `— ${witnessKey.split('+')[0]} cosignature-${size}-${time}\n`,
});

describe('the tree heads projection', () => {
  it('given the empty tree and two signed heads, then one document per size, ids sorting as sizes, without cosignatures', () =>
    given([signed(0), signed(2, 0, [1, 2]), signed(10, 2, [3, 4, 5, 6, 7, 8, 9, 10])]).thenDocuments({
      [TREE_HEADS]: {
        '0000000000000000': head(0),
        '0000000000000002': head(2),
        '0000000000000010': head(10),
      },
    }));

  it('given a signed head, when two witnesses cosign it, then it holds both cosignatures in the order accepted', () =>
    given([signed(2, 0, [1, 2])])
      .when([cosigned(2, WITNESS_B, 1_772_359_300), cosigned(2, WITNESS_A, 1_772_359_301)])
      .thenDocuments({
        [TREE_HEADS]: {
          [treeHeadId(SHARED_LOG_NAME, 2)]: head(2, [
            cosignature(2, WITNESS_B, 1_772_359_300),
            cosignature(2, WITNESS_A, 1_772_359_301),
          ]),
        },
      }));

  it('given a cosigned head, when the same witness cosigns it again, then the first cosignature stays alone', () =>
    given([signed(2, 0, [1, 2]), cosigned(2, WITNESS_A, 1_772_359_300)])
      .when([cosigned(2, WITNESS_A, 1_772_359_999)])
      .thenNothingChanged());

  it('given heads of sizes 2 and 3, when a witness cosigns size 2, then only that head changes', () =>
    given([signed(2, 0, [1, 2]), signed(3, 2, [3])])
      .when([cosigned(2, WITNESS_A, 1_772_359_300)])
      .thenDocuments({
        [TREE_HEADS]: {
          [treeHeadId(SHARED_LOG_NAME, 2)]: head(2, [cosignature(2, WITNESS_A, 1_772_359_300)]),
          [treeHeadId(SHARED_LOG_NAME, 3)]: head(3),
        },
      }));

  it('given no head of that size, when a cosignature names it, then nothing is written', () =>
    given([signed(2, 0, [1, 2])])
      .when([cosigned(5, WITNESS_A, 1_772_359_300)])
      .thenNothingChanged());

  it('idempotence: a head and its cosignatures delivered twice leave the same documents', () =>
    given([])
      .when(
        [signed(2, 0, [1, 2]), cosigned(2, WITNESS_A, 1_772_359_300), cosigned(2, WITNESS_B, 1_772_359_301)],
        {
          numberOfTimes: 2,
        },
      )
      .thenDocuments({
        [TREE_HEADS]: {
          [treeHeadId(SHARED_LOG_NAME, 2)]: head(2, [
            cosignature(2, WITNESS_A, 1_772_359_300),
            cosignature(2, WITNESS_B, 1_772_359_301),
          ]),
        },
      }));

  describe('with many logs', () => {
    const TEST = 'test';
    const DEDICATED = `dedicated-${'c'.repeat(24)}`;

    it('given heads of the same sizes in three logs, then one document each: the shared log keeps its ids, the others are prefixed with their name', () =>
      given([
        signed(0),
        signed(0, 0, [], TEST),
        signed(2, 0, [1, 2], SHARED_LOG_NAME),
        signed(0, 0, [], DEDICATED),
        signed(2, 0, [3, 4], TEST),
      ]).thenDocuments({
        [TREE_HEADS]: {
          '0000000000000000': head(0),
          '0000000000000002': head(2),
          'test:0000000000000000': head(0, [], TEST),
          'test:0000000000000002': head(2, [], TEST),
          [`${DEDICATED}:0000000000000000`]: head(0, [], DEDICATED),
        },
      }));

    it('given heads of size 2 in two logs, when a witness cosigns the test log at size 2, then only the test log’s head holds it', () =>
      given([signed(2, 0, [1, 2]), signed(2, 0, [3, 4], TEST)])
        .when([cosigned(2, WITNESS_A, 1_772_359_300, TEST)])
        .thenDocuments({
          [TREE_HEADS]: {
            [treeHeadId(SHARED_LOG_NAME, 2)]: head(2),
            [treeHeadId(TEST, 2)]: head(2, [cosignature(2, WITNESS_A, 1_772_359_300)], TEST),
          },
        }));

    it('given a cosignature of the shared log without a `log` member, then it is the shared log’s', () =>
      given([signed(2, 0, [1, 2]), signed(2, 0, [3, 4], TEST)])
        .when([cosigned(2, WITNESS_A, 1_772_359_300)])
        .thenDocuments({
          [TREE_HEADS]: {
            [treeHeadId(SHARED_LOG_NAME, 2)]: head(2, [cosignature(2, WITNESS_A, 1_772_359_300)]),
            [treeHeadId(TEST, 2)]: head(2, [], TEST),
          },
        }));

    it('given no head of that size in the log named, when a cosignature names it, then nothing is written', () =>
      given([signed(2, 0, [1, 2]), signed(3, 0, [3, 4, 5], TEST)])
        .when([
          cosigned(3, WITNESS_A, 1_772_359_300, SHARED_LOG_NAME),
          cosigned(2, WITNESS_A, 1_772_359_300, TEST),
        ])
        .thenNothingChanged());
  });
});
