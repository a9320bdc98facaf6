import type { PrinterProfile } from '../../../shared/printer-profiles.ts';
import type { PrinterInfo } from '../../../shared/printing.ts';
import { el } from './dom.ts';

export interface RouteDraft {
  name: string;
  printer: string;
  /**
   * Backup printers as typed, a comma list in the order tried when the printer cannot print
   * (docs/agent.md, "Backup printers"); empty: none.
   */
  backups?: string;
  /** What the printer understands (docs/templates.md); none: it prints what it is sent. */
  profile?: PrinterProfile;
}

/**
 * The printers a shop has, as staff know them: each a profile that templates are rendered
 * for. A profile saved some other way (IT's `PUT /printing/routes`) shows as "Custom".
 */
export const profilePresets: Array<{ label: string; profile: PrinterProfile | undefined }> = [
  { label: 'Prints what it is sent', profile: undefined },
  { label: 'Receipt 80 mm, ESC/POS (Epson…)', profile: { language: 'escpos', width_mm: 80 } },
  { label: 'Receipt 58 mm, ESC/POS', profile: { language: 'escpos', width_mm: 58 } },
  { label: 'Receipt 80 mm, Star', profile: { language: 'starprnt', width_mm: 80 } },
  { label: 'Receipt 58 mm, Star', profile: { language: 'starprnt', width_mm: 58 } },
  { label: 'Label 50 mm, ZPL (Zebra…)', profile: { language: 'zpl', width_mm: 50 } },
  { label: 'Label 100 mm, ZPL', profile: { language: 'zpl', width_mm: 100 } },
  { label: 'Office printer, A4 PDF', profile: { language: 'pdf', width_mm: 'a4' } },
  { label: 'Office printer, Letter PDF', profile: { language: 'pdf', width_mm: 'letter' } },
  { label: 'Plain text, 80 mm', profile: { language: 'text', width_mm: 80 } },
];

const sameProfile = (a: PrinterProfile | undefined, b: PrinterProfile | undefined) =>
  JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** The index of the route's profile among the presets; -1 for one saved some other way. */
export function presetIndexOf(profile: PrinterProfile | undefined): number {
  return profilePresets.findIndex((preset) => sameProfile(preset.profile, profile));
}

/** The profile picker of a route: what its printer understands, as a preset. */
function profileSelect(route: RouteDraft, handlers: RouteRowHandlers): HTMLSelectElement {
  const select = el('select', {
    className: 'route-profile',
    attrs: { 'aria-label': `Printer kind for ${route.name}`, 'data-route-profile': route.name },
  });
  profilePresets.forEach((preset, index) => {
    select.append(el('option', { text: preset.label, attrs: { value: String(index) } }));
  });
  const index = presetIndexOf(route.profile);
  if (index < 0)
    select.append(el('option', { text: 'Custom (set by IT)', attrs: { value: 'custom' } }));
  select.value = index < 0 ? 'custom' : String(index);
  select.addEventListener('change', () => {
    if (select.value === 'custom') return;
    handlers.changeProfile(route.name, profilePresets[Number(select.value)]?.profile);
  });
  return select;
}

export interface RouteRowHandlers {
  changeProfile(name: string, profile: PrinterProfile | undefined): void;
  changePrinter(name: string, printer: string): void;
  changeBackups(name: string, backups: string): void;
  remove(name: string): void;
  testPrint(name: string): void;
}

/**
 * A route with its printer picker. A printer the OS no longer lists stays selectable, marked
 * "not found", so that staff see why the route does not print and can pick another.
 */
export function renderRouteRow(
  route: RouteDraft,
  printers: PrinterInfo[],
  handlers: RouteRowHandlers,
  saved: boolean,
): HTMLElement {
  const known = printers.some((printer) => printer.name === route.printer);
  const missing = route.printer !== '' && !known && printers.length > 0;
  const select = el('select', {
    attrs: { 'aria-label': `Printer for ${route.name}`, 'data-route': route.name },
  });
  if (route.printer === '') {
    select.append(el('option', { text: 'Choose a printer…', attrs: { value: '', disabled: '' } }));
  }
  for (const printer of printers) {
    const label = printer.is_default ? `${printer.name} (default)` : printer.name;
    select.append(el('option', { text: label, attrs: { value: printer.name } }));
  }
  if (route.printer !== '' && !known) {
    const label = missing ? `${route.printer} — not found` : route.printer;
    select.append(el('option', { text: label, attrs: { value: route.printer } }));
  }
  select.value = route.printer;
  select.addEventListener('change', () => handlers.changePrinter(route.name, select.value));

  const test = el('button', {
    className: 'button button-small',
    text: 'Test print',
    title: saved ? 'Print a test page on this route' : 'Save the printers first',
    attrs: { type: 'button', 'aria-label': `Test print on ${route.name}` },
  });
  test.disabled = !saved || route.printer === '';
  test.addEventListener('click', () => handlers.testPrint(route.name));

  const remove = el('button', {
    className: 'button button-small button-quiet button-remove',
    text: '✕',
    title: 'Remove this route',
    attrs: { type: 'button', 'aria-label': `Remove route ${route.name}` },
  });
  remove.addEventListener('click', () => handlers.remove(route.name));

  const backups = el('input', {
    className: 'route-backups-input',
    attrs: {
      type: 'text',
      'aria-label': `Backup printers for ${route.name}, in order, separated by commas`,
      'data-route-backups': route.name,
      placeholder: 'none (e.g. Front-2, Office)',
      autocomplete: 'off',
      spellcheck: 'false',
    },
  });
  backups.value = route.backups ?? '';
  backups.addEventListener('change', () => handlers.changeBackups(route.name, backups.value));
  const backupRow = el('label', { className: 'route-backups' }, [
    el('span', { text: 'When it cannot print, use: ' }),
    backups,
  ]);

  const problem = missing
    ? [
        el('p', {
          className: 'route-problem',
          text: `This PC does not list "${route.printer}". Is it switched on and connected? Or choose another printer.`,
        }),
      ]
    : [];
  return el('div', { className: `route-row${missing ? ' route-missing' : ''}` }, [
    el('span', { className: 'route-name', text: route.name }),
    select,
    profileSelect(route, handlers),
    test,
    remove,
    backupRow,
    ...problem,
  ]);
}

/** The settings' comma list → the printer and the backups as the window edits them. */
export function routeDraftOf(name: string, printers: string, profile?: PrinterProfile): RouteDraft {
  const [printer = '', ...backups] = printers.split(',').map((part) => part.trim());
  return {
    name,
    printer,
    ...(backups.length > 0 && { backups: backups.join(', ') }),
    ...(profile && { profile }),
  };
}

/** The route's printers as the settings keep them: one comma list, the first printer first. */
export function printerListOf(route: RouteDraft): string {
  const backups = (route.backups ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '' && part !== route.printer);
  return [route.printer, ...new Set(backups)].join(',');
}
