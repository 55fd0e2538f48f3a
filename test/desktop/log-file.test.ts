// The desktop log file: appends JSON lines, rotates by size, keeps a bounded number of old files.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RotatingLogFile, fileLogger } from '../../src-main/desktop/log-file.ts';

const dir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-desktop-log-'));

describe('RotatingLogFile', () => {
  it('appends across reopenings, creating the folder with a private file', () => {
    const file = path.join(dir(), 'logs', 'balcao.log');
    const a = new RotatingLogFile({ file });
    a.write('one\n');
    a.close();
    const b = new RotatingLogFile({ file });
    b.write('two\n');
    b.close();
    expect(fs.readFileSync(file, 'utf8')).toBe('one\ntwo\n');
    expect((fs.statSync(file).mode & 0o777).toString(8)).toBe('600');
  });

  it('rotates before a line would pass maxBytes and keeps only `keep` old files, newest first', () => {
    const file = path.join(dir(), 'balcao.log');
    const log = new RotatingLogFile({ file, maxBytes: 20, keep: 2 });
    // 10 bytes each: two lines per file.
    for (let i = 0; i < 8; i++) log.write(`line ${i}...\n`);
    log.close();
    expect(fs.readFileSync(file, 'utf8')).toBe('line 6...\nline 7...\n');
    expect(fs.readFileSync(`${file}.1`, 'utf8')).toBe('line 4...\nline 5...\n');
    expect(fs.readFileSync(`${file}.2`, 'utf8')).toBe('line 2...\nline 3...\n');
    expect(fs.existsSync(`${file}.3`)).toBe(false);
    expect(fs.readdirSync(path.dirname(file)).sort()).toEqual(['balcao.log', 'balcao.log.1', 'balcao.log.2']);
  });

  it('a single line longer than maxBytes still gets written whole', () => {
    const file = path.join(dir(), 'balcao.log');
    const log = new RotatingLogFile({ file, maxBytes: 8, keep: 1 });
    log.write('0123456789abcdef\n');
    log.write('x\n');
    log.close();
    expect(fs.readFileSync(`${file}.1`, 'utf8')).toBe('0123456789abcdef\n');
    expect(fs.readFileSync(file, 'utf8')).toBe('x\n');
  });

  it('counts bytes, not characters (UTF-8 accents)', () => {
    const file = path.join(dir(), 'balcao.log');
    const log = new RotatingLogFile({ file, maxBytes: 12, keep: 1 });
    log.write('ação ação\n'); // 14 bytes, 10 characters
    log.write('b\n');
    log.close();
    expect(fs.readFileSync(file, 'utf8')).toBe('b\n');
  });

  it('refuses nonsensical settings', () => {
    expect(() => new RotatingLogFile({ file: path.join(dir(), 'x.log'), keep: 0 })).toThrow(RangeError);
    expect(() => new RotatingLogFile({ file: path.join(dir(), 'x.log'), maxBytes: 0 })).toThrow(RangeError);
  });
});

describe('fileLogger', () => {
  it("writes the project logger's JSON lines at its level and echoes them", () => {
    const file = path.join(dir(), 'balcao.log');
    const log = new RotatingLogFile({ file });
    const echoed: string[] = [];
    const logger = fileLogger('info', log, (line) => echoed.push(line));
    logger.debug('hidden');
    logger.warn('queue slow', { pending: 3 });
    log.close();
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ level: 'warn', msg: 'queue slow', pending: 3 });
    expect(echoed).toEqual([`${lines[0] ?? ''}\n`]);
  });

  it('keeps logging to the echo after the file is closed instead of throwing', () => {
    const log = new RotatingLogFile({ file: path.join(dir(), 'balcao.log') });
    log.close();
    const echoed: string[] = [];
    fileLogger('info', log, (line) => echoed.push(line)).info('after close');
    expect(echoed).toHaveLength(1);
  });
});
