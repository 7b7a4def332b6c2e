import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run.js';
import { type Harness, startHarness } from './helpers/harness.js';
import { startServerProcess, storeEnv } from './helpers/processes.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

async function cli(env: Record<string, string>, ...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, {
    env: { ...storeEnv(h), LOG_LEVEL: 'warn', ...env },
    out: (l) => out.push(l),
    err: (l) => err.push(l),
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('GET /', () => {
  it("is a small page, in the browser's language (English, or Hindi), linking the docs, the dashboard and the health check", async () => {
    const res = await h.request('GET', '/');
    expect(res.status).toBe(200);
    expect(res.text).toContain('<html lang="en">');
    expect(res.text).toContain('Dashboard for the business');
    expect(res.headers.vary).toBe('Accept-Language');
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    for (const href of ['/docs', '/dashboard', '/healthz', '/openapi.json']) {
      expect(res.text).toContain(`href="${href}"`);
    }
    expect(res.text).toContain('npm run -s cli -- demo');
    expect(res.text).not.toContain('डैशबोर्ड');
    expect(res.text.length).toBeLessThan(4000);
    const hindi = await h.request('GET', '/', { headers: { 'accept-language': 'hi-IN,hi;q=0.9,en;q=0.8' } });
    expect(hindi.text).toContain('<html lang="hi">');
    expect(hindi.text).toContain('<a href="/dashboard">कारोबार का डैशबोर्ड</a>');
    expect(hindi.text).toContain('आगे: <code>npm run -s cli -- demo</code> नमूने का');
  });

  it('links only to pages that answer', async () => {
    const res = await h.request('GET', '/');
    const hrefs = [...res.text.matchAll(/href="([^"]+)"/g)].map((m) => m[1] as string);
    expect(hrefs.length).toBeGreaterThanOrEqual(4);
    for (const href of hrefs) {
      const linked = await h.request('GET', href);
      expect([200, 302, 303], href).toContain(linked.status);
    }
  });
});

describe('the OpenAPI document names the host it was fetched from as its server', () => {
  for (const path of ['/openapi.json', '/docs/json']) {
    it(`${path}, whatever PUBLIC_BASE_URL says`, async () => {
      expect(h.config.publicBaseUrl).toBe('https://pay.example.test');
      for (const host of ['127.0.0.1:3000', 'localhost:4100', '192.168.1.20:3000']) {
        const res = await h.request('GET', path, { headers: { host } });
        expect(res.status).toBe(200);
        expect(res.body.servers).toEqual([{ url: `http://${host}` }]);
      }
    });
  }
});

describe('CLI URLs follow the server configuration', () => {
  it('login-link uses PUBLIC_BASE_URL, else HOST and PORT', async () => {
    const { business } = await h.newBusiness();
    const link = async (env: Record<string, string>) => {
      const res = await cli(env, 'login-link', '--business', business.id, '--json');
      expect(res.code, res.err).toBe(0);
      return JSON.parse(res.out).url as string;
    };
    expect(await link({ PORT: '4123', PUBLIC_BASE_URL: '' })).toMatch(
      /^http:\/\/localhost:4123\/dashboard\/login\/[\w-]+$/,
    );
    expect(await link({ HOST: '0.0.0.0', PORT: '4124', PUBLIC_BASE_URL: '' })).toMatch(
      /^http:\/\/localhost:4124\/dashboard\/login\//,
    );
    expect(await link({ HOST: '192.168.1.20', PORT: '4125', PUBLIC_BASE_URL: '' })).toMatch(
      /^http:\/\/192\.168\.1\.20:4125\/dashboard\/login\//,
    );
    expect(await link({ PORT: '4126', PUBLIC_BASE_URL: 'https://khata.example.in/' })).toMatch(
      /^https:\/\/khata\.example\.in\/dashboard\/login\//,
    );
  });
});

describe('npm start', () => {
  /** The start-up lines arrive on stderr just after the listener opens: waited for, at most 10 s. */
  async function startupText(env: Record<string, string>): Promise<{ text: string; port: string }> {
    const { child, base, logs } = await startServerProcess({ ...storeEnv(h), WORKERS: 'off', ...env });
    try {
      const deadline = Date.now() + 10_000;
      while (!logs.join('').includes('Next:')) {
        if (Date.now() > deadline) throw new Error(`no start-up lines:\n${logs.join('')}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return { text: logs.join(''), port: new URL(base).port };
    } finally {
      child.kill('SIGTERM');
    }
  }

  it('prints where the API, docs, dashboard and health check are, and the next command', async () => {
    const { text, port } = await startupText({ PUBLIC_BASE_URL: '' });
    const base = `http://localhost:${port}`;
    expect(text).toContain(`API          ${base}/v1`);
    expect(text).toContain(`API docs     ${base}/docs`);
    expect(text).toContain(`Dashboard    ${base}/dashboard`);
    expect(text).toContain(`Health       ${base}/healthz`);
    expect(text).toContain('Next: npm run -s cli -- demo');
  }, 60_000);

  it('prints PUBLIC_BASE_URL when it is set', async () => {
    const { text } = await startupText({ PUBLIC_BASE_URL: 'https://khata.example.in' });
    expect(text).toContain('Dashboard    https://khata.example.in/dashboard');
  }, 60_000);
});
