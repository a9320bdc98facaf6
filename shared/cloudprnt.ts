import { z } from 'zod';
import { routeNameSchema } from './printing.ts';

/** `POST /cloudprnt/printers`: the route a Star CloudPRNT printer prints, and its name. */
export const addCloudPrntPrinterBody = z.object({
  route: routeNameSchema,
  name: z.string().trim().min(1).max(255).optional(),
});

/** The values to type into the printer's CloudPRNT settings, shown once. */
export const addedCloudPrntPrinter = z.object({
  agent_id: z
    .string()
    .describe('The print agent that stands for the printer (`GET /printing/agents`).'),
  url: z.string().describe("The printer's Server URL setting."),
  user: z.string().describe("The printer's User Name setting."),
  password: z.string().describe("The printer's Password setting: shown this once."),
});
export type AddedCloudPrntPrinter = z.infer<typeof addedCloudPrntPrinter>;
