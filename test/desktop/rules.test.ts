// The desktop shell's rules, checked without Electron: where the window may go, which permissions the page
// gets, the CSP, who receives the bridge, the paths and service settings, and the Electron-only boundary.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  isAppUrl,
  navigationDecision,
  originOf,
  permissionAllowed,
} from '../../src-main/desktop/navigation.ts';
import { CONTENT_SECURITY_POLICY, withContentSecurityPolicy } from '../../src-main/desktop/csp.ts';
import { DESKTOP_INFO_CHANNEL, desktopInfoFor } from '../../src-main/desktop/bridge.ts';
import { desktopPaths, desktopServiceConfig } from '../../src-main/desktop/config.ts';
import { projectRoot } from '../../src-main/paths.ts';

const origin = 'http://127.0.0.1:43210';

describe('navigation', () => {
  it('keeps the service pages in the app, sends web links to the system browser, refuses the rest', () => {
    expect(originOf('http://127.0.0.1:43210')).toBe(origin);
    expect(navigationDecision(`${origin}/`, origin)).toBe('app');
    expect(navigationDecision(`${origin}/v1/nfe/nfe_1/danfe?api_key=x`, origin)).toBe('app');
    expect(navigationDecision(`blob:${origin}/5d1e-44`, origin)).toBe('app');
    expect(navigationDecision('https://www.nfe.fazenda.gov.br/portal/', origin)).toBe('external');
    expect(navigationDecision('http://127.0.0.1:43211/', origin)).toBe('external');
    expect(navigationDecision('http://localhost:43210/', origin)).toBe('external');
    expect(navigationDecision('https://127.0.0.1:43210/', origin)).toBe('external');
    for (const url of [
      'file:///etc/passwd',
      'javascript:alert(1)',
      'data:text/html,<script>1</script>',
      'blob:https://evil.example/1',
      'ms-settings:display',
      'not a url',
    ]) {
      expect(navigationDecision(url, origin)).toBe('deny');
    }
  });

  it('originOf refuses anything but http (the service never listens on TLS locally)', () => {
    expect(() => originOf('https://127.0.0.1:1')).toThrow();
    expect(() => originOf('nonsense')).toThrow();
  });

  it('grants only clipboard writes and fullscreen, only to the app origin', () => {
    expect(permissionAllowed('clipboard-sanitized-write', `${origin}/`, origin)).toBe(true);
    expect(permissionAllowed('fullscreen', origin, origin)).toBe(true);
    expect(permissionAllowed('clipboard-sanitized-write', 'https://evil.example/', origin)).toBe(false);
    for (const p of ['media', 'geolocation', 'notifications', 'clipboard-read', 'openExternal', 'serial']) {
      expect(permissionAllowed(p, `${origin}/`, origin)).toBe(false);
    }
    expect(isAppUrl('', origin)).toBe(false);
  });
});

describe('content security policy', () => {
  it('allows only same-origin scripts and connections, no plugins objects, no framing by others', () => {
    const directives = new Map(
      CONTENT_SECURITY_POLICY.split('; ').map((d) => {
        const [name, ...values] = d.split(' ');
        return [name, values] as const;
      }),
    );
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('connect-src')).toEqual(["'self'"]);
    expect(directives.get('object-src')).toEqual(["'none'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe-eval');
  });

  it("replaces the service's own policy whatever its header case, keeping the other headers", () => {
    const out = withContentSecurityPolicy({
      'content-security-policy': ['default-src *'],
      'Content-Type': ['text/html'],
      'X-Request-Id': 'req_1',
    });
    expect(out).toEqual({
      'Content-Type': ['text/html'],
      'X-Request-Id': ['req_1'],
      'Content-Security-Policy': [CONTENT_SECURITY_POLICY],
    });
    expect(withContentSecurityPolicy(undefined)).toEqual({
      'Content-Security-Policy': [CONTENT_SECURITY_POLICY],
    });
  });
});

describe('bridge', () => {
  const info = { apiKey: 'blc_0123456789abcdef_x', baseUrl: `${origin}/v1` };

  it('answers the app frames only', () => {
    expect(desktopInfoFor(`${origin}/`, origin, info)).toEqual(info);
    expect(desktopInfoFor(`${origin}/vendas?x=1`, origin, info)).toEqual(info);
    expect(desktopInfoFor('https://evil.example/', origin, info)).toBeNull();
    expect(desktopInfoFor('http://127.0.0.1:1/', origin, info)).toBeNull();
    expect(desktopInfoFor(undefined, origin, info)).toBeNull();
    expect(desktopInfoFor('about:blank', origin, info)).toBeNull();
  });

  it('the preload uses the same channel and exposes only apiKey and baseUrl, never ipcRenderer', () => {
    const preload = fs.readFileSync(path.join(projectRoot, 'src-main/desktop/preload.cts'), 'utf8');
    expect(preload).toContain(`const DESKTOP_INFO_CHANNEL = '${DESKTOP_INFO_CHANNEL}';`);
    const exposed = [...preload.matchAll(/exposeInMainWorld\('(\w+)', (.+)\);/g)].map((m) => [m[1], m[2]]);
    expect(exposed).toEqual([['balcaoDesktop', 'Object.freeze({ apiKey, baseUrl })']]);
  });
});

describe('paths and service settings', () => {
  const userData = path.join(path.sep, 'home', 'caixa', '.config', 'Balcao');

  it('keeps data and logs in the user data folder by default', () => {
    expect(desktopPaths(userData, {})).toEqual({
      userDataDir: userData,
      dataDir: path.join(userData, 'data'),
      logFile: path.join(userData, 'logs', 'balcao.log'),
    });
    const custom = path.join(path.sep, 'srv', 'balcao');
    expect(desktopPaths(userData, { BALCAO_DATA_DIR: custom }).dataDir).toBe(custom);
    expect(desktopPaths(userData, { BALCAO_DATA_DIR: 'loja-2' }).dataDir).toBe(path.join(userData, 'loja-2'));
  });

  it('listens on loopback only, on a free port unless BALCAO_PORT fixes one', () => {
    const paths = desktopPaths(userData, {});
    expect(desktopServiceConfig(paths, {})).toMatchObject({
      host: '127.0.0.1',
      port: 0,
      dataDir: paths.dataDir,
      logLevel: 'info',
    });
    const fixed = desktopServiceConfig(paths, { BALCAO_PORT: '8787', BALCAO_HOST: '0.0.0.0' });
    expect(fixed).toMatchObject({ host: '127.0.0.1', port: 8787 });
    expect(() => desktopServiceConfig(paths, { BALCAO_PORT: 'abc' })).toThrow(/BALCAO_PORT/);
  });
});

describe('Electron boundary', () => {
  it('every desktop file that imports electron is left out of the root type check, and only those', () => {
    const dir = path.join(projectRoot, 'src-main', 'desktop');
    const importing = fs
      .readdirSync(dir)
      .filter((f) => /\.c?ts$/.test(f))
      .filter((f) => /from 'electron'|require\('electron'\)/.test(fs.readFileSync(path.join(dir, f), 'utf8')))
      .map((f) => `src-main/desktop/${f}`)
      .sort();
    const tsconfig = JSON.parse(fs.readFileSync(path.join(projectRoot, 'tsconfig.json'), 'utf8')) as {
      exclude: string[];
    };
    expect(importing).toEqual(['src-main/desktop/main.ts', 'src-main/desktop/preload.cts']);
    expect(tsconfig.exclude.filter((e) => e.startsWith('src-main/desktop')).sort()).toEqual(importing);
  });
});
