import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

describe('loadConfig', () => {
  it('reads whole numbers and falls back to the defaults', () => {
    expect(loadConfig({ PORT: '9090', WAYMARK_JOB_LEASE_MS: '2000' })).toMatchObject({ port: 9090, jobLeaseMs: 2000 });
    expect(loadConfig({})).toMatchObject({ port: 8080, jobLeaseMs: 30_000 });
  });

  it('refuses a number that is not one, naming the variable', () => {
    expect(() => loadConfig({ WAYMARK_JOB_LEASE_MS: '30s' })).toThrow(/WAYMARK_JOB_LEASE_MS/);
    expect(() => loadConfig({ WAYMARK_JOB_LEASE_MS: '0' })).toThrow(/WAYMARK_JOB_LEASE_MS/);
    expect(() => loadConfig({ PORT: 'http' })).toThrow(/PORT/);
  });
});
