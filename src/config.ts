import { join } from 'node:path';
import { projectRoot } from './paths.js';

export interface Config {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  dataDir: string;
  mapDir: string | undefined;
  logLevel: string;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    port: Number(env.PORT ?? 8080),
    host: env.HOST ?? '0.0.0.0',
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: env.WAYMARK_DATA_DIR ?? join(projectRoot, 'data'),
    mapDir: env.WAYMARK_MAP || undefined,
    logLevel: env.LOG_LEVEL ?? 'info',
  };
}
