/** PRODUCT part 4: names are trimmed and unique per business, case-insensitively. */
export function contactNameKey(name: string): string {
  return name.trim().normalize('NFC').toLowerCase();
}
