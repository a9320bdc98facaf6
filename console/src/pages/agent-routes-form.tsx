import type { PrintRoute } from '../../../shared/printing.ts';
import { type EditedRoute, RoutesEditor } from '../../../ui/routes-editor.tsx';
import { api, failureMessage } from '../api.ts';

/**
 * Edits an agent's routes with the editor the tray's window uses too (ui/routes-editor.tsx):
 * each route's name, its printer (one the agent reported), backups, printer profile and
 * whether it is on. Saved through `PUT /console/agents/{uuid}/routes`; the agent takes the
 * change at its next heartbeat (docs/console.md).
 */
export function AgentRoutesForm(props: {
  agentId: string;
  agentName: string;
  routes: PrintRoute[];
  printers: string[];
  onSaved: () => void;
  onClose: () => void;
}) {
  const { agentId, routes } = props;
  const save = async (edited: EditedRoute[]) => {
    try {
      await api('PUT', `/console/agents/${agentId}/routes`, {
        routes: edited.map((route) => {
          // The options of the route it was (the form does not edit them) are kept.
          const options = route.from === null ? undefined : routes[route.from]?.options;
          return {
            name: route.name,
            printer: route.printer,
            // Sent only when there are some: a route without reads as it always did.
            ...(route.backups.length > 0 && { backup_printers: route.backups }),
            enabled: route.enabled,
            ...(options && { options }),
            ...(route.profile && { profile: route.profile }),
          };
        }),
      });
    } catch (failure) {
      throw new Error(failureMessage(failure));
    }
    props.onSaved();
    return 'Saved. The agent takes the new routes within a few seconds.';
  };
  return (
    <RoutesEditor
      label={`Routes of ${props.agentName}`}
      idBase={`route-${agentId}`}
      routes={routes.map((route) => ({
        name: route.name,
        printer: route.printer,
        backups: route.backup_printers ?? [],
        enabled: route.enabled,
        profile: route.profile,
      }))}
      printers={props.printers.map((name) => ({ name }))}
      save={save}
      withEnabled
      notListed="not reported by the agent"
      onClose={props.onClose}
    />
  );
}
