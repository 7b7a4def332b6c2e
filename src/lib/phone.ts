import { type CountryCode, parsePhoneNumberFromString } from 'libphonenumber-js/max';

/**
 * SPEC part 1: phones are accepted in any format and stored as digits with the country code and
 * no plus. The business's country is the default region for numbers written without one.
 * Returns null when the input is not a valid phone number.
 */
export function normalisePhone(input: string, defaultCountry: string): string | null {
  const parsed = parsePhoneNumberFromString(input, defaultCountry.toUpperCase() as CountryCode);
  if (!parsed?.isValid()) return null;
  return parsed.number.slice(1);
}

/** Digits reversed, so "ends with" becomes an index-friendly "starts with". */
export function reversedDigits(phone: string): string {
  return phone.split('').reverse().join('');
}
