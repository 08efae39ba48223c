export { tempDir } from '../tests/support/temp-dir';
