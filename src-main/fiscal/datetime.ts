// Date-times as the NF-e layout writes them (TDateTimeUTC: AAAA-MM-DDThh:mm:ss±hh:mm) in a given IANA zone.

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

// One note asks for the same dhEmi several times (ide, access key, tax year): formatToParts is the costly part.
let last: { ms: number; timeZone: string; text: string } | undefined;

/** `2026-11-22T12:30:00-03:00`: local wall time of `timeZone` with its UTC offset at that instant. */
export function formatDateTimeTz(date: Date, timeZone: string): string {
  const ms = date.getTime();
  if (last !== undefined && last.ms === ms && last.timeZone === timeZone) return last.text;
  const text = formatUncached(date, timeZone);
  last = { ms, timeZone, text };
  return text;
}

function formatUncached(date: Date, timeZone: string): string {
  const parts = Object.fromEntries(
    formatter(timeZone)
      .formatToParts(date)
      .map((p) => [p.type, p.value]),
  );
  const local = Date.UTC(
    Number(parts['year']),
    Number(parts['month']) - 1,
    Number(parts['day']),
    Number(parts['hour']),
    Number(parts['minute']),
    Number(parts['second']),
  );
  const offsetMinutes = Math.round((local - Math.floor(date.getTime() / 1000) * 1000) / 60_000);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  const offset = `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return `${parts['year']}-${parts['month']}-${parts['day']}T${parts['hour']}:${parts['minute']}:${parts['second']}${offset}`;
}
