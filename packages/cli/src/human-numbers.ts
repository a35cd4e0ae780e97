// Numbers as people read them on standard error: sizes in decimal units, counts with thousands
// separators. Fixed to one notation, so that a log reads the same on every machine.

const COUNT = new Intl.NumberFormat("en-US");

/** Bytes for people: 1.5 MB, 980 kB. */
export function formatBytes(bytes: number): string {
  const units = ["B", "kB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${unit === 0 ? Math.round(value) : value.toFixed(1)} ${units[unit]}`;
}

/** A count for people: 20,000. */
export function formatCount(count: number): string {
  return COUNT.format(count);
}
