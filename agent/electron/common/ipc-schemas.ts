import { z } from 'zod';
import { printerProfileSchema } from '../../../shared/printer-profiles.ts';
import { routeNameSchema } from '../../../shared/printing.ts';
import { type InvokeChannel, ipcChannels } from './ipc-channels.ts';

/**
 * The zod schemas of the IPC arguments (channels in ipc-channels.ts); the main process
 * checks with them.
 */
const printerNameSchema = z.string().trim().min(1).max(255);
const jobIdSchema = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
/** What the user typed as the server address: http(s) only, no credentials in it. */
export const serverUrlSchema = z
  .string()
  .trim()
  .max(2048)
  .refine((value) => {
    try {
      const url = new URL(value);
      return (
        (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password
      );
    } catch {
      return false;
    }
  }, 'Enter the server address, like https://shopdesk.example.com');
export const tokenSchema = z
  .string()
  .trim()
  .min(1)
  .max(4096)
  .regex(/^[\x21-\x7e]+$/, 'The token is one word of printable characters.');

/**
 * The settings' routes: route name → the printer it prints on (`{receipts: 'EPSON_TM_T20'}`),
 * or its printers as a comma list, the first then its backups (`'Front-1,Front-2'`).
 */
const printerListSchema = z
  .string()
  .trim()
  .min(1)
  .max(8 * 256)
  .refine(
    (list) => list.split(',').every((name) => printerNameSchema.safeParse(name).success),
    'Each printer of the list needs a name of 1 to 255 characters.',
  );
export const printerByRouteSchema = z
  .record(routeNameSchema, printerListSchema)
  .refine((routes) => Object.keys(routes).length <= 100, 'At most 100 routes.');
export type PrinterByRoute = z.infer<typeof printerByRouteSchema>;

/** The settings' printer profiles: route name → what its printer understands (docs/templates.md). */
export const profileByRouteSchema = z
  .record(routeNameSchema, printerProfileSchema)
  .refine((routes) => Object.keys(routes).length <= 100, 'At most 100 routes.');
export type ProfileByRoute = z.infer<typeof profileByRouteSchema>;

/** A change of settings from the window; fields left out stay as they are. */
export const settingsPatchSchema = z.strictObject({
  serverUrl: serverUrlSchema.optional(),
  token: tokenSchema.optional(),
  routes: printerByRouteSchema.optional(),
  profiles: profileByRouteSchema.optional(),
  startAtLogin: z.boolean().optional(),
});
export type SettingsPatch = z.infer<typeof settingsPatchSchema>;

export const connectionTestSchema = z.strictObject({
  serverUrl: serverUrlSchema,
  /** Left out: test the token already saved. */
  token: tokenSchema.optional(),
});
export type ConnectionTestRequest = z.infer<typeof connectionTestSchema>;

/** Arguments of each invoke channel, as a tuple: extra or missing arguments are refused too. */
export const invokeArgumentSchemas = {
  [ipcChannels.getSnapshot]: z.tuple([]),
  [ipcChannels.saveSettings]: z.tuple([settingsPatchSchema]),
  [ipcChannels.testConnection]: z.tuple([connectionTestSchema]),
  [ipcChannels.listPrinters]: z.tuple([]),
  [ipcChannels.retryJob]: z.tuple([jobIdSchema]),
  [ipcChannels.reprintJob]: z.tuple([jobIdSchema]),
  [ipcChannels.testPrint]: z.tuple([routeNameSchema]),
  [ipcChannels.pauseAgent]: z.tuple([]),
  [ipcChannels.resumeAgent]: z.tuple([]),
  [ipcChannels.openLogs]: z.tuple([]),
} as const satisfies Record<InvokeChannel, z.ZodTuple>;

export type InvokeArguments<C extends InvokeChannel> = z.infer<(typeof invokeArgumentSchemas)[C]>;
