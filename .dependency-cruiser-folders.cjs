/**
 * No circles between folders, over the code that ships: `npm run deps` runs this after
 * `.dependency-cruiser.cjs`. Tests are left out because they sit beside the code they test and share
 * helpers in tests/support, which import that code back: circles that no shipped code has.
 */
const { forbidden, options } = require('./.dependency-cruiser.cjs');

/** The test code `.dependency-cruiser.cjs` already names (its domain rule leaves tests free to do I/O). */
const testCode = forbidden.find((rule) => rule.name === 'domain-no-io').from.pathNot;

module.exports = {
  forbidden: [
    {
      name: 'no-circular-folders',
      comment:
        'Two folders whose files import each other (around a loop of folders, type imports included). ' +
        "A folder's imports include its subfolders' imports.",
      severity: 'error',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    ...options,
    exclude: { path: testCode },
  },
};
