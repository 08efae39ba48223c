import { sthFromCheckpointNote, toHex } from '../merkle-core';
import { governanceProjection, LEAVES } from '../projectors/governance';
import type { LogSequencer } from '../projectors/log-sequencer';
import { TREE_HEADS, type TreeHeadView, treeHeadId, treeHeadsProjection } from '../projectors/tree-heads';
import type { LeafView, PublishedLog, PublishedTreeHead } from '../read-api/published-log';
import type { ReadModels } from '../read-api/read-models';

/**
 * The public log as served by a process that runs the sequencer: hashes and proofs from its in-memory
 * tree, leaf records and historical heads from the read models. Only signed sizes are visible.
 */
export class SequencedLog implements PublishedLog {
  constructor(
    private readonly sequencer: LogSequencer,
    private readonly readModels: ReadModels,
  ) {}

  get verifierKey(): string {
    return this.sequencer.verifierKey;
  }

  latest(): PublishedTreeHead {
    return this.sequencer.latest();
  }

  async treeHeadAt(treeSize: number): Promise<PublishedTreeHead | null> {
    const latest = this.latest();
    if (latest.sth.tree_size === treeSize) return latest;
    const doc = await this.readModels.get<TreeHeadView>(
      treeHeadsProjection,
      TREE_HEADS,
      treeHeadId(treeSize),
    );
    if (!doc) return null;
    return {
      checkpoint: doc.data.checkpoint,
      sth: sthFromCheckpointNote(doc.data.checkpoint, this.verifierKey),
    };
  }

  root(treeSize: number): Uint8Array {
    return this.sequencer.log.root(this.signed(treeSize));
  }

  leafHash(index: number): Uint8Array {
    this.signed(index + 1);
    return this.sequencer.log.leafHash(index);
  }

  inclusionProof(index: number, treeSize: number): Uint8Array[] {
    return this.sequencer.log.inclusionProof(index, this.signed(treeSize));
  }

  consistencyProof(from: number, to: number): Uint8Array[] {
    return this.sequencer.log.consistencyProof(from, this.signed(to));
  }

  tile(level: number, index: number, width: number): Uint8Array {
    return this.sequencer.log.tile(level, index, width);
  }

  async leafByHash(leafHashHex: string): Promise<LeafView | null> {
    const doc = await this.readModels.get<LeafView>(governanceProjection, LEAVES, leafHashHex);
    if (!doc || doc.data.leaf_index >= this.latest().sth.tree_size) return null;
    return doc.data;
  }

  async leafByIndex(index: number): Promise<LeafView | null> {
    if (index >= this.latest().sth.tree_size) return null;
    const hash = toHex(this.sequencer.log.leafHash(index));
    return (await this.readModels.get<LeafView>(governanceProjection, LEAVES, hash))?.data ?? null;
  }

  /** Refuses sizes beyond the latest signed head (the tree may hold leaves not signed yet). */
  private signed(treeSize: number): number {
    const size = this.latest().sth.tree_size;
    if (treeSize > size)
      throw new RangeError(`tree size ${treeSize} is beyond the latest signed size ${size}`);
    return treeSize;
  }
}
