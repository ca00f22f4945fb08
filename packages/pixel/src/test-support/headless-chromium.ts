import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';

/** Debian's `chromium` package; playwright-core never downloads a browser here. */
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

// no network beyond the test's own servers: no QUIC, sync, component or background fetches
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

function requireChromium(): void {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM_PATH}: install Debian's package (sudo apt-get install chromium; .ci/run does this) or set CHROMIUM_PATH`,
    );
  }
}

/**
 * Chromium without a profile, for tests that need many fresh visitors (a context each, with its
 * own User-Agent). `args` come after the defaults, e.g. `--host-resolver-rules=MAP news.example
 * 127.0.0.1:PORT` so that pages live on real-looking host names.
 */
export async function launchBrowser(args: string[] = []): Promise<Browser> {
  requireChromium();
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: [...ARGS, ...args], timeout: 30000 });
}

// Headless Chromium announces itself as HeadlessChrome, which the ingest rightly counts as a bot
// (stored, never reported); the page under test stands for a real reader on a desktop browser.
const DESKTOP_USER_AGENT =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36';

export interface HeadlessChromium {
  context: BrowserContext;
  close(): Promise<void>;
}

/**
 * Chromium with a fresh profile directory. A missing browser is a failure, not a skip: CI
 * installs it (.ci/run), so its absence means the machine is not set up.
 */
export async function launchChromium(): Promise<HeadlessChromium> {
  requireChromium();
  const profile = mkdtempSync(path.join(os.tmpdir(), 'pixel-chromium-'));
  try {
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: ARGS,
      userAgent: DESKTOP_USER_AGENT,
      timeout: 30000,
    });
    return {
      context,
      async close() {
        await context.close().catch(() => undefined);
        rmSync(profile, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(profile, { recursive: true, force: true });
    throw err;
  }
}
