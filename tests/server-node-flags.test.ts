/**
 * The embedded server runs with the same Node options however it is started: `npm start`, the Docker
 * image, and the benchmarks (which import SERVER_NODE_FLAGS), so the figures are those of what runs.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { SERVER_NODE_FLAGS } from '../runtime/config/node-flags';
import { REPO_ROOT } from './support/children';

const read = (file: string) => fs.readFileSync(path.join(REPO_ROOT, file), 'utf8');

describe('the server’s Node options', () => {
  it('given npm start, then node runs the server with every one of them', () => {
    const start = (JSON.parse(read('package.json')) as { scripts: { start: string } }).scripts.start.split(
      /\s+/,
    );
    expect(start[0]).toBe('node');
    expect(start.at(-1)).toBe('dist/runtime/main.js');
    expect(start).toEqual(expect.arrayContaining([...SERVER_NODE_FLAGS]));
  });

  it('given the Docker image, then its command runs the server with every one of them', () => {
    const command = /^CMD (\[.*\])$/m.exec(read('Dockerfile'))?.[1];
    expect(command).toBeDefined();
    const args = JSON.parse(command!) as string[];
    expect(args[0]).toBe('node');
    expect(args.at(-1)).toBe('dist/runtime/main.js');
    expect(args).toEqual(expect.arrayContaining([...SERVER_NODE_FLAGS]));
  });

  it('is a set of options this Node accepts', () => {
    // An option Node does not know stops it before the server starts; this Node must know each one.
    const options = execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8' });
    const known = new Set(options.match(/^\s+--[a-z0-9-]+/gm)?.map((flag) => flag.trim()));
    for (const flag of SERVER_NODE_FLAGS) expect(known).toContain(flag);
  });
});
