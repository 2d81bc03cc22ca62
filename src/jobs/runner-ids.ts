import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { likeLiteral } from '../db/like.js';
import { processAlive } from '../db/owner-lock.js';

// Every claim (a job, a geocoding batch) is held under a lease in the name of a runner id
// `<host>:<pid>:<random>` (JobRunner, GeocodingRunner). A lease ends when its runner stops renewing it,
// which for another host is the only sign it died. On the same host the pid tells at once: a runner
// restarted after a crash takes its predecessor's work back immediately instead of a lease later.

const HOST = hostname();
/** Runner ids of this process that are running: any other with our pid is a previous life of the pid. */
const live = new Set<string>();

export function newRunnerId(): string {
  const id = `${HOST}:${process.pid}:${randomBytes(3).toString('hex')}`;
  live.add(id);
  return id;
}

export function retireRunnerId(id: string): void {
  live.delete(id);
}

/** A LIKE pattern matching the runner ids of this host. */
export const thisHostPattern = () => `${likeLiteral(HOST)}:%`;

/** Whether the runner with this id (of this host) is gone. Ids of other hosts are never known dead here. */
export function isDeadHere(id: string): boolean {
  if (live.has(id)) return false;
  const [host, pid] = id.split(':');
  if (host !== HOST) return false;
  const n = Number(pid);
  if (!Number.isInteger(n)) return false;
  return n === process.pid || !processAlive(n);
}
