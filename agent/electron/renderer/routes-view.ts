import type { PrinterInfo } from '../../../shared/printing.ts';
import { el } from './dom.ts';

export interface RouteDraft {
  name: string;
  printer: string;
}

export interface RouteRowHandlers {
  changePrinter(name: string, printer: string): void;
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
    test,
    remove,
    ...problem,
  ]);
}
