import { z } from 'zod';
import { routeNameSchema } from './printing.ts';

/** The printers that poll ShopDesk: Star's CloudPRNT, Epson's Server Direct Print. */
export const cloudPrinterKinds = ['star', 'epson'] as const;
export type CloudPrinterKind = (typeof cloudPrinterKinds)[number];

/**
 * `POST /cloudprnt/printers`: the route the printer prints, its name, and which protocol it
 * speaks (`star`, Star CloudPRNT, unless `epson`: Epson Server Direct Print).
 */
export const addCloudPrntPrinterBody = z.object({
  route: routeNameSchema,
  name: z.string().trim().min(1).max(255).optional(),
  kind: z.enum(cloudPrinterKinds).optional(),
});

/** The values to type into the printer's CloudPRNT settings, shown once. */
export const addedCloudPrntPrinter = z.object({
  agent_id: z
    .string()
    .describe('The print agent that stands for the printer (`GET /printing/agents`).'),
  url: z.string().describe("The printer's Server URL setting (Epson: Server Direct Print's URL)."),
  user: z.string().describe("The printer's User Name setting (Epson: its ID)."),
  password: z.string().describe("The printer's Password setting: shown this once."),
});
export type AddedCloudPrntPrinter = z.infer<typeof addedCloudPrntPrinter>;
