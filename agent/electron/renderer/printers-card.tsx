import { useEffect, useMemo, useState } from 'preact/hooks';
import type { PrinterInfo } from '../../../shared/printing.ts';
import { type EditedRoute, RoutesEditor } from '../../../ui/routes-editor.tsx';
import type { RecentJob } from '../../core/status.ts';
import type { SettingsView } from '../common/ipc.ts';
import { bridge, inWords } from './bridge.ts';

/** The settings' comma lists → the routes as the editor shows them, by name. */
function routesOf(settings: SettingsView) {
  return Object.entries(settings.routes)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, printers]) => {
      const [printer = '', ...backups] = printers.split(',').map((part) => part.trim());
      return { name, printer, backups, enabled: true, profile: settings.profiles?.[name] };
    });
}

/** The edited routes → the settings: one comma list a route, the first printer first. */
function settingsOf(routes: EditedRoute[]) {
  return {
    routes: Object.fromEntries(
      routes.map((route) => [route.name, [route.printer, ...route.backups].join(',')]),
    ),
    profiles: Object.fromEntries(
      routes.flatMap((route) => (route.profile ? [[route.name, route.profile]] : [])),
    ),
  };
}

/**
 * Which printer prints each route on this PC, with the editor the console uses for an
 * agent's routes (ui/routes-editor.tsx); saved into the agent's settings through the bridge.
 * A printer this PC no longer lists stays chosen, marked, so that staff see why the route
 * does not print and can pick another.
 */
export function PrintersCard(props: { settings: SettingsView | null; recentJobs: RecentJob[] }) {
  const [printers, setPrinters] = useState<PrinterInfo[]>([]);
  const [listProblem, setListProblem] = useState('');
  const refresh = async () => {
    try {
      setPrinters(await bridge.listPrinters());
      setListProblem('');
    } catch {
      setListProblem('Could not list the printers of this PC.');
    }
  };
  useEffect(() => void refresh(), []);
  const { settings } = props;
  const routes = useMemo(() => (settings ? routesOf(settings) : []), [settings]);
  const jobRoutes = [...new Set(props.recentJobs.map((job) => job.route))];
  return (
    <section class="card" aria-labelledby="routes-title">
      <div class="card-head">
        <h2 id="routes-title">Printers</h2>
        <button type="button" class="button button-quiet" onClick={() => void refresh()}>
          Refresh list
        </button>
      </div>
      <p class="hint">
        Each route is a kind of document the shop system sends (receipts, labels…). Choose the
        printer that prints it.
      </p>
      {listProblem && <p class="message message-bad">{listProblem}</p>}
      <RoutesEditor
        label="Printers of this PC"
        idBase="route"
        routes={routes}
        printers={printers.map((printer) => ({
          name: printer.name,
          ...(printer.is_default && { note: 'default' }),
        }))}
        save={(edited) =>
          inWords(() => bridge.saveSettings(settingsOf(edited)), 'Printers saved.').then(
            () => 'Printers saved.',
          )
        }
        notListed={printers.length > 0 ? 'not found' : 'not checked yet'}
        notListedAdvice={(printer) =>
          printers.length > 0
            ? `This PC does not list "${printer}". Is it switched on and connected? Or choose another printer.`
            : ''
        }
        suggested={{ intro: 'Jobs came for routes with no printer here:', names: jobRoutes }}
        rowActions={(route, saved) => (
          <TestPrintButton route={route.name} disabled={!saved || route.printer === ''} />
        )}
        saveLabel="Save printers"
      />
    </section>
  );
}

function TestPrintButton(props: { route: string; disabled: boolean }) {
  const [message, setMessage] = useState('');
  const run = () =>
    inWords(() => bridge.testPrint(props.route)).then(setMessage, (failure: Error) =>
      setMessage(failure.message),
    );
  return (
    <>
      <button
        type="button"
        class="secondary"
        disabled={props.disabled}
        title={props.disabled ? 'Save the printers first' : 'Print a test page on this route'}
        onClick={() => void run()}
      >
        Test print on {props.route}
      </button>
      <span role="status">{message}</span>
    </>
  );
}
