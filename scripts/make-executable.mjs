// After tsc: make every bin entry of package.json executable. tsc writes files without the x bit, and `npx
// mcp-conform` in this checkout runs dist/bin/mcp-conform.js directly, so a rebuild would otherwise break it.
import { chmodSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
for (const file of Object.values(pkg.bin ?? {})) chmodSync(join(root, file), 0o755);
