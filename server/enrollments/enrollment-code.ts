import { hash, randomInt } from 'node:crypto';
import {
  enrollmentAlphabet,
  enrollmentCodeLength,
  formatEnrollmentCode,
} from '../../shared/enrollments.ts';

/**
 * A new code, `K7QF-M2XD`: 8 symbols of 30, about 39 bits. Short enough to read off a
 * screen and type; guessing stays out of reach because a code lives hours, not years, and
 * each address gets a few tries a minute (tries.ts).
 */
export function newEnrollmentCode(): { code: string; compact: string } {
  let compact = '';
  for (let i = 0; i < enrollmentCodeLength; i++) {
    compact += enrollmentAlphabet[randomInt(enrollmentAlphabet.length)];
  }
  return { code: formatEnrollmentCode(compact), compact };
}

/** What is stored of a code (normalised first: see normalizeEnrollmentCode). */
export const hashEnrollmentCode = (compact: string): string => hash('sha256', compact, 'hex');
