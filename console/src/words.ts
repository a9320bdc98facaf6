/** What the API's codes mean, as shop staff and IT say it. */

export const jobStates: Record<string, string> = {
  queued: 'Waiting to print',
  claimed: 'Printing',
  printed: 'Printed',
  failed: 'Failed',
  expired: 'Expired',
  cancelled: 'Cancelled',
};

const reasonWords: Record<string, string> = {
  'media-empty': 'out of paper',
  'media-needed': 'needs paper',
  'media-jam': 'paper jam',
  'door-open': 'a door is open',
  'cover-open': 'the cover is open',
  'toner-empty': 'out of toner',
  'toner-low': 'toner low',
  'marker-supply-empty': 'out of ink',
  'marker-supply-low': 'ink low',
  offline: 'offline',
  paused: 'paused',
  'connecting-to-device': 'connecting',
  'input-tray-missing': 'paper tray missing',
  'output-area-full': 'output tray full',
};

/** `media-empty-error` → "out of paper". */
export function reasonInWords(reason: string): string {
  const bare = reason.replace(/-(report|warning|error)$/, '');
  return reasonWords[bare] ?? bare.replaceAll('-', ' ');
}

export const printerStates: Record<string, string> = {
  idle: 'Ready',
  printing: 'Printing',
  stopped: 'Stopped',
  offline: 'Offline',
  unknown: 'Unknown',
};

export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  return new Date(iso).toLocaleString();
}

/** A count with its noun: `count(1, 'job')` → "1 job", `count(3, 'job')` → "3 jobs". */
export function count(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString()} ${n === 1 ? one : many}`;
}
