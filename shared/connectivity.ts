import { z } from 'zod';
import { permissionSchema } from './permissions.ts';

export const healthBody = z.object({ status: z.literal('ok'), time: z.string() });

/** `GET /me`: who the token belongs to and what it may do; never the secret. */
export const meRecord = z.object({
  company: z.object({ id: z.number().int(), name: z.string() }),
  token: z.object({
    id: z.number().int(),
    name: z.string(),
    permissions: z.array(permissionSchema),
    expires_at: z.string().nullable(),
  }),
});
