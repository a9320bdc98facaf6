import { z } from 'zod';
import { recordId } from './http.ts';
import { permissionSchema } from './permissions.ts';

export const healthBody = z.object({ status: z.literal('ok'), time: z.string() });

/** `GET /health/ready`: the database answers and its schema is current (docs/scale-out.md). */
export const readyBody = z.object({ status: z.literal('ready'), time: z.string() });

/** `GET /me`: who the token belongs to and what it may do; never the secret. */
export const meRecord = z.object({
  company: z.object({ id: recordId, name: z.string() }),
  token: z.object({
    id: recordId,
    name: z.string(),
    permissions: z.array(permissionSchema),
    expires_at: z.string().nullable(),
  }),
});
