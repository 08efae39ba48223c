/** The platform's name and the engine it runs on, for /health and /v1/version. */
import fs from 'node:fs';
import path from 'node:path';
import { SERVICE_NAME, SERVICE_VERSION } from '../../../runtime/core/services';

/** The platform's name in /health, /v1/version and its OpenAPI document. */
export const PLATFORM_SERVICE_NAME = 'gov-agent-platform';

/** The package that runs both services, its version, and the MCP SDK the platform's tools use. */
export function platformEngine(): { package: string; version: string; mcp_sdk: string | null } {
  return { package: SERVICE_NAME, version: SERVICE_VERSION, mcp_sdk: MCP_SDK_VERSION };
}

const MCP_SDK_VERSION = installedVersion('@modelcontextprotocol/sdk');

/**
 * The version of package `name` as installed where this module would load it from, or null. Read
 * from its package.json in each folder Node would look in: a package need not export that file, nor
 * have a main entry point (the MCP SDK has neither).
 */
function installedVersion(name: string): string | null {
  for (const folder of require.resolve.paths(name) ?? []) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(folder, name, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === name && pkg.version) return pkg.version;
    } catch {
      // not installed in this folder: look in the next
    }
  }
  return null;
}
