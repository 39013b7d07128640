import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderHtml } from '../../demo/render.js';
import { runScenarios } from '../../demo/run.js';
import { SCENARIOS } from '../../demo/scenarios.js';

/**
 * The incident page as a person sees it: rendered by Debian's Chromium (headless, driven by
 * playwright-core), asserted on the rendered DOM and computed styles, not on the HTML source.
 */
describe('the demo incident page in headless Chromium', () => {
  const names = ['pause-401-missing-ecr-policy', 'subnet-ip-exhaustion'];
  const profile = mkdtempSync(join(tmpdir(), 'pod-doctor-chromium-'));
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    const results = await runScenarios(
      SCENARIOS.filter((s) => names.includes(s.name)),
      { simulatedNodes: true },
    );
    const file = join(profile, 'report.html');
    writeFileSync(file, renderHtml(results));
    context = await chromium.launchPersistentContext(join(profile, 'user-data'), {
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    page = await context.newPage();
    await page.goto(pathToFileURL(file).href);
  }, 300_000);

  afterAll(async () => {
    await context?.close();
    rmSync(profile, { recursive: true, force: true });
  });

  it('shows the headline with the counts', async () => {
    expect(await page.locator('#headline').textContent()).toBe(
      '2 scenarios: 1 repaired and verified, 0 remedied, 1 diagnosed, 0 rolled back',
    );
  });

  it('colours the statuses: a FAIL badge is red, a PASS badge green', async () => {
    const colour = (sel: string) =>
      page
        .locator(sel)
        .first()
        // Runs in the page: the browser's getComputedStyle (this project's TypeScript has no DOM types).
        .evaluate(
          (el) =>
            (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(
              el,
            ).backgroundColor,
        );
    expect(await colour('.badge.fail')).toBe('rgb(207, 34, 46)');
    expect(await colour('.badge.pass')).toBe('rgb(26, 127, 55)');
  });

  it('puts FAIL and WARN first and folds the PASS checks away', async () => {
    const section = page.locator('section#pause-401-missing-ecr-policy');
    const shown = await section.locator('table.checks').first().locator('.badge').allInnerTexts();
    expect(shown.length).toBeGreaterThan(0);
    expect(shown).not.toContain('PASS');
    expect(shown[0]).toBe('FAIL');
    await expect(section.locator('details.passed .badge.pass').first().isVisible()).resolves.toBe(false);
  });

  it('draws the timeline as an SVG, each segment with its duration, from first seen to verified', async () => {
    const svg = page.locator('section#pause-401-missing-ecr-policy svg.timeline');
    await expect(svg.isVisible()).resolves.toBe(true);
    const segments = svg.locator('g.segment');
    const from = await segments.evaluateAll((gs) => gs.map((g) => g.getAttribute('data-from')));
    const last = await segments.last().getAttribute('data-to');
    expect([...from, last]).toEqual([
      'first seen',
      'opened',
      'diagnosed',
      'approval asked',
      'approval given',
      'action',
      'verified',
    ]);
    const durations = await svg.locator('text.duration').allTextContents();
    expect(durations).toHaveLength(6);
    for (const d of durations) expect(d).toMatch(/^\d+(\.\d)? (ms|s)$|^\d+ min( \d+ s)?$/);
    // The line of each segment is drawn: it has a width on the page.
    const box = await segments.first().locator('line').boundingBox();
    expect(box?.width ?? 0).toBeGreaterThan(50);
  });

  it('links the execution in the console of the incident’s Region, and shows the chat card, pages and events', async () => {
    const section = page.locator('section#pause-401-missing-ecr-policy');
    const hrefs = await section.locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    expect(
      hrefs.some((h) => h?.startsWith('https://eu-west-1.console.aws.amazon.com/states/home?region=eu-west-1')),
    ).toBe(true);
    expect(await section.locator('.card h4').allInnerTexts()).toEqual(
      expect.arrayContaining(['Chat card · approval-pending', 'Chat card · verified']),
    );
    expect(await section.locator('.card details summary').allInnerTexts()).toContain('pager bodies (trigger)');
    expect(await section.locator('table.events tr').count()).toBeGreaterThan(1);
  });
});
