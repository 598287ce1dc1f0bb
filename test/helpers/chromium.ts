/** Headless Chromium (Debian's `chromium`) for report tests: screenshots and the DOM after scripts ran. */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export function findChromium(): string | undefined {
  for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
    const r = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
    if (r.status === 0 && r.stdout.trim()) return r.stdout.trim();
  }
  return undefined;
}

export interface ChromiumResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs headless Chromium on a local file with extra flags (--screenshot=…, --dump-dom); bounded, own process group. */
export function chromium(bin: string, file: string, extra: string[], timeoutMs = 60_000): Promise<ChromiumResult> {
  const profile = mkdtempSync(join(tmpdir(), 'mcp-conform-chromium-'));
  const args = [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    `--user-data-dir=${profile}`,
    '--window-size=1280,2000',
    ...extra,
    pathToFileURL(file).href,
  ];
  return new Promise((res, rej) => {
    const child = spawn(bin, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b) => (stdout += b));
    child.stderr.on('data', (b) => (stderr += b));
    const killGroup = () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    };
    const timer = setTimeout(() => {
      killGroup();
      rej(new Error(`chromium did not finish within ${timeoutMs} ms\n${stderr.slice(-2000)}`));
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      rej(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      killGroup(); // helpers (zygote, GPU process) that outlived the browser
      rmSync(profile, { recursive: true, force: true });
      res({ code, stdout, stderr });
    });
  });
}
