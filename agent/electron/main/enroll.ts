import { normalizeEnrollmentCode, type RedeemedEnrollment } from '../../../shared/enrollments.ts';
import type { PrinterByRoute } from '../common/ipc.ts';

/**
 * The tray's first-run field takes the agent token or an enrolment code (`K7QF-M2XD`; tokens
 * start with `sd_`, so the two never look alike). A code is traded for the agent's own token
 * (the core's redeemEnrollmentCode, bound to this agent's uuid), which the settings keep with
 * safeStorage like a typed token; the code's routes go on the computer's default printer when
 * no route is mapped yet, for staff to change in the window.
 */
export const looksLikeEnrollmentCode = (text: string): boolean =>
  normalizeEnrollmentCode(text) !== null;

export interface TrayEnrollment {
  token: string;
  /** The routes to save, when the code named some and none were mapped yet. */
  routes?: PrinterByRoute;
  message: string;
}

export async function enrollTray(options: {
  serverUrl: string;
  code: string;
  currentRoutes: PrinterByRoute;
  redeem: (serverUrl: string, code: string) => Promise<RedeemedEnrollment>;
  defaultPrinter: () => Promise<string | null>;
}): Promise<TrayEnrollment> {
  const redeemed = await options.redeem(options.serverUrl, options.code);
  const message = `Enrolled with ${redeemed.company.name} as agent ${redeemed.agent_id}.`;
  if (redeemed.routes.length === 0 || Object.keys(options.currentRoutes).length > 0) {
    return { token: redeemed.token, message };
  }
  const printer = await options.defaultPrinter().catch(() => null);
  if (printer === null) {
    return {
      token: redeemed.token,
      message: `${message} Pick a printer for ${redeemed.routes.join(', ')} under Printers: this PC has no default printer.`,
    };
  }
  return {
    token: redeemed.token,
    routes: Object.fromEntries(redeemed.routes.map((route) => [route, printer])),
    message: `${message} ${redeemed.routes.join(', ')} print on ${printer}; change it under Printers.`,
  };
}
