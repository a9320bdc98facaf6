/**
 * Whether a route's printer profile fits the printer it names (docs/printing.md, "Profiles
 * that fit their printer"): an ESC/POS profile on a queue that takes PDF prints a blank page
 * and is called printed, so the route waits instead, `printer_misconfigured`. Plain data and
 * types only, no zod: the console bundles it.
 */

/** A profile's language, and the languages a printer takes (`capabilities.languages`). */
type Language = 'escpos' | 'starprnt' | 'zpl' | 'pdf' | 'text' | 'epos';

/** The names people know the languages by. */
export const languageWords: Record<Language, string> = {
  escpos: 'ESC/POS',
  starprnt: 'StarPRNT',
  zpl: 'ZPL',
  pdf: 'PDF',
  text: 'text',
  epos: 'ePOS-Print XML',
};

/** Plain text prints on a receipt printer as it is, and through a PDF queue's driver. */
const takesText: readonly Language[] = ['escpos', 'starprnt', 'pdf', 'text', 'epos'];

/**
 * Why `profile` does not fit the printer, in words ("misconfigured: EPSON takes PDF, the
 * profile says ESC/POS"); null when it fits or nothing says otherwise: a route without a
 * profile (it prints what it is sent), a printer whose languages are not known.
 */
export function profileMisfit(
  profile: { language: Language } | null | undefined,
  printer: {
    name: string;
    capabilities?: { languages?: readonly Language[] | undefined } | undefined;
  },
): string | null {
  const languages = printer.capabilities?.languages;
  if (!profile || languages === undefined || languages.length === 0) return null;
  if (languages.includes(profile.language)) return null;
  if (profile.language === 'text' && languages.some((language) => takesText.includes(language))) {
    return null;
  }
  const takes = languages
    .filter((language) => language !== 'text')
    .map((language) => languageWords[language])
    .join(' or ');
  return `misconfigured: ${printer.name} takes ${takes || 'text'}, the profile says ${languageWords[profile.language]}`;
}
