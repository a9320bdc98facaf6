import packageJson from '../../package.json' with { type: 'json' };

/**
 * The agent's version is the package's, read from package.json as the server reads it. A JSON
 * import rather than a read at run time: esbuild inlines it into the Electron bundle, whose
 * main.js does not sit where package.json is relative to this file.
 */
export const agentVersion: string = packageJson.version;
