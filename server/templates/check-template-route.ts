import type { PrinterProfile } from '../../shared/printer-profiles.ts';
import { languageWords } from '../../shared/profile-fit.ts';
import type { TemplateKind } from '../../shared/templates.ts';
import { InvalidFields } from '../domain-errors.ts';
import { routeProfiles } from '../printing/index.ts';
import type { Db } from '../storage/db.ts';
import { defaultProfile } from './render-document.ts';

/** The printer languages each kind of template renders into (`render-document.ts`). */
const kindPrintsOn: Record<TemplateKind, readonly PrinterProfile['language'][]> = {
  receipt: ['escpos', 'starprnt', 'zpl', 'pdf', 'text', 'epos'],
  label: ['zpl'],
};

/**
 * Refuses (422 on `template`) a template job that no printer of its route can print: a
 * label template to a route whose printers all have receipt profiles (a route without a
 * profile renders for the default, an 80 mm ESC/POS receipt printer). Every agent serving
 * the route (enabled) counts, online or not: a profile is the route's configuration, not a
 * printer's state. A route nobody serves is not checked: the job waits, `no_agent_for_route`.
 */
export async function refuseTemplateTheRouteCannotPrint(
  db: Db,
  companyId: number,
  route: string,
  kind: TemplateKind,
): Promise<void> {
  const profiles = await routeProfiles(db, companyId, route);
  if (profiles.length === 0) return;
  const languages = [...new Set(profiles.map((profile) => (profile ?? defaultProfile).language))];
  if (languages.some((language) => kindPrintsOn[kind].includes(language))) return;
  const prints = languages.map((language) => languageWords[language]).join(', ');
  const needs = kindPrintsOn[kind].map((language) => languageWords[language]).join(' or ');
  const message = `No printer serving route ${route} can print a ${kind} template: the route prints ${prints} (its printers' profiles); a ${kind} prints on ${needs} only.`;
  throw new InvalidFields({ template: [message] });
}
