// Days as the store lives them: the company's UF time zone, for the session list's day filter and the times
// printed on the register's tickets (a store in Manaus closes its day an hour after one in São Paulo).
import type { Db } from '../db/client.ts';
import { ufBySigla } from '../../src-shared/uf.ts';
import { DEFAULT_TIME_ZONE } from './ticket.ts';

export async function timeZoneOf(db: Db, companyId: string): Promise<string> {
  const company = await db
    .selectFrom('companies')
    .select('uf')
    .where('id', '=', companyId)
    .executeTakeFirst();
  return (company === undefined ? undefined : ufBySigla(company.uf)?.timeZone) ?? DEFAULT_TIME_ZONE;
}

/** Minutes the zone is ahead of UTC at `instant` (negative in Brazil), from the zone's own table. */
function offsetMinutes(instant: number, timeZone: string): number {
  const name = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' })
    .formatToParts(new Date(instant))
    .find((p) => p.type === 'timeZoneName')?.value;
  const match = /GMT([+-])(\d{2}):(\d{2})/.exec(name ?? '');
  if (match === null) return 0;
  const minutes = Number(match[2]) * 60 + Number(match[3]);
  return match[1] === '-' ? -minutes : minutes;
}

/** The UTC instant (ISO) at which local day `day` (AAAA-MM-DD) starts in `timeZone`. */
export function startOfLocalDay(day: string, timeZone: string): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const midnightUtc = Date.UTC(y, m - 1, d);
  return new Date(midnightUtc - offsetMinutes(midnightUtc, timeZone) * 60_000).toISOString();
}

/** The UTC instant (ISO) at which the local day after `day` starts: the exclusive end of `day`. */
export function endOfLocalDay(day: string, timeZone: string): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const next = new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
  return startOfLocalDay(next, timeZone);
}
