/**
 * An immutable map from strings to values (a hash array mapped trie): `set` and `delete` return a new
 * map that shares everything but one root-to-leaf path (at most seven small nodes) with the old one.
 * Aggregate states keep their growing collections (subjects, executed authorizations, webhooks) in
 * it, so an `evolve` that returns a new state costs O(log n) per event instead of a copy of every
 * entry, and a state once handed out never changes under its holder.
 */

const BITS = 5;
const MASK = (1 << BITS) - 1;

interface Leaf<V> {
  readonly hash: number;
  readonly key: string;
  readonly value: V;
}
/** Entries whose keys hash alike (all 32 bits). */
interface Collision<V> {
  readonly hash: number;
  readonly leaves: readonly Leaf<V>[];
}
/** Up to 32 children, one per 5-bit slice of the hash at this depth present in `bitmap`. */
interface Branch<V> {
  readonly bitmap: number;
  readonly children: readonly Node<V>[];
}
type Node<V> = Leaf<V> | Collision<V> | Branch<V>;

const isBranch = <V>(node: Node<V>): node is Branch<V> => 'bitmap' in node;
const isCollision = <V>(node: Node<V>): node is Collision<V> => 'leaves' in node;

/** FNV-1a over the UTF-16 code units. Exported for the tests, which need keys that collide. */
export function stringHash(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

function popcount(bits: number): number {
  let n = bits - ((bits >>> 1) & 0x55555555);
  n = (n & 0x33333333) + ((n >>> 2) & 0x33333333);
  return (((n + (n >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

function find<V>(node: Node<V> | undefined, hash: number, key: string): Leaf<V> | undefined {
  for (let shift = 0; node !== undefined; shift += BITS) {
    if (isBranch(node)) {
      const bit = 1 << ((hash >>> shift) & MASK);
      if ((node.bitmap & bit) === 0) return undefined;
      node = node.children[popcount(node.bitmap & (bit - 1))];
    } else if (isCollision(node)) {
      return node.hash === hash ? node.leaves.find((leaf) => leaf.key === key) : undefined;
    } else {
      return node.hash === hash && node.key === key ? node : undefined;
    }
  }
  return undefined;
}

/** A branch holding two nodes of different hashes, as deep as their hashes agree. */
function fork<V>(a: Leaf<V> | Collision<V>, b: Leaf<V>, shift: number): Branch<V> {
  const ia = (a.hash >>> shift) & MASK;
  const ib = (b.hash >>> shift) & MASK;
  if (ia === ib) return { bitmap: 1 << ia, children: [fork(a, b, shift + BITS)] };
  return { bitmap: (1 << ia) | (1 << ib), children: ia < ib ? [a, b] : [b, a] };
}

function insert<V>(node: Node<V> | undefined, leaf: Leaf<V>, shift: number): Node<V> {
  if (node === undefined) return leaf;
  if (isBranch(node)) {
    const bit = 1 << ((leaf.hash >>> shift) & MASK);
    const index = popcount(node.bitmap & (bit - 1));
    const children = node.children.slice();
    if ((node.bitmap & bit) === 0) {
      children.splice(index, 0, leaf);
      return { bitmap: node.bitmap | bit, children };
    }
    children[index] = insert(node.children[index], leaf, shift + BITS);
    return { bitmap: node.bitmap, children };
  }
  if (node.hash !== leaf.hash) return fork(node, leaf, shift);
  const leaves = isCollision(node) ? node.leaves : [node];
  const at = leaves.findIndex((other) => other.key === leaf.key);
  if (at < 0) return { hash: leaf.hash, leaves: [...leaves, leaf] };
  if (leaves.length === 1) return leaf;
  const replaced = leaves.slice();
  replaced[at] = leaf;
  return { hash: leaf.hash, leaves: replaced };
}

/** The node without `key`: the same node when it has no such key, undefined when nothing is left. */
function remove<V>(node: Node<V>, hash: number, key: string, shift: number): Node<V> | undefined {
  if (isBranch(node)) {
    const bit = 1 << ((hash >>> shift) & MASK);
    if ((node.bitmap & bit) === 0) return node;
    const index = popcount(node.bitmap & (bit - 1));
    const child = node.children[index] as Node<V>;
    const after = remove(child, hash, key, shift + BITS);
    if (after === child) return node;
    const children = node.children.slice();
    if (after === undefined) children.splice(index, 1);
    else children[index] = after;
    const bitmap = after === undefined ? node.bitmap & ~bit : node.bitmap;
    // A branch left with one leaf or collision gives way to it, as if that had been inserted alone.
    if (children.length === 0) return undefined;
    if (children.length === 1 && !isBranch(children[0] as Node<V>)) return children[0];
    return { bitmap, children };
  }
  if (node.hash !== hash) return node;
  if (!isCollision(node)) return node.key === key ? undefined : node;
  const leaves = node.leaves.filter((leaf) => leaf.key !== key);
  if (leaves.length === node.leaves.length) return node;
  return leaves.length === 1 ? leaves[0] : { hash, leaves };
}

function* leavesOf<V>(node: Node<V> | undefined): Generator<Leaf<V>> {
  if (node === undefined) return;
  if (isBranch(node)) for (const child of node.children) yield* leavesOf(child);
  else if (isCollision(node)) yield* node.leaves;
  else yield node;
}

export class PersistentMap<V> implements Iterable<[string, V]> {
  private static readonly EMPTY = new PersistentMap<never>(undefined, 0);

  private constructor(
    private readonly root: Node<V> | undefined,
    readonly size: number,
  ) {}

  static empty<V>(): PersistentMap<V> {
    return PersistentMap.EMPTY;
  }

  static of<V>(entries: Iterable<readonly [string, V]>): PersistentMap<V> {
    let map = PersistentMap.empty<V>();
    for (const [key, value] of entries) map = map.set(key, value);
    return map;
  }

  get(key: string): V | undefined {
    return find(this.root, stringHash(key), key)?.value;
  }

  has(key: string): boolean {
    return find(this.root, stringHash(key), key) !== undefined;
  }

  set(key: string, value: V): PersistentMap<V> {
    const hash = stringHash(key);
    const grows = find(this.root, hash, key) === undefined;
    return new PersistentMap(insert(this.root, { hash, key, value }, 0), this.size + (grows ? 1 : 0));
  }

  delete(key: string): PersistentMap<V> {
    if (this.root === undefined) return this;
    const root = remove(this.root, stringHash(key), key, 0);
    return root === this.root ? this : new PersistentMap(root, this.size - 1);
  }

  *entries(): Generator<[string, V]> {
    for (const leaf of leavesOf(this.root)) yield [leaf.key, leaf.value];
  }

  *keys(): Generator<string> {
    for (const leaf of leavesOf(this.root)) yield leaf.key;
  }

  *values(): Generator<V> {
    for (const leaf of leavesOf(this.root)) yield leaf.value;
  }

  [Symbol.iterator](): Generator<[string, V]> {
    return this.entries();
  }
}
