/** tree: RFC 6962/9162 Merkle hashing (leaf, node, empty tree), the compact range, a leaf hash → index table. */
export { CompactRange } from './compact-range';
export { EMPTY_ROOT, HASH_SIZE, leafHash, nodeHash } from './hash';
export { LeafHashIndex } from './leaf-hash-index';
