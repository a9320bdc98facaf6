import { z } from 'zod';
import { dataOf, pageOf } from '../../shared/http.ts';
import {
  offerInput,
  offerListQuery,
  offerParams,
  offerPatch,
  offerRecord,
  offerReplace,
  quoteBulkInput,
  quoteRecord,
} from '../../shared/offers.ts';
import { pageReply } from '../http/pagination.ts';
import { created, defineRoute, noContent, ok, replaceAndPatchRoutes } from '../http/route.ts';
import { createOffer } from './create-offer.ts';
import { deleteOffer } from './delete-offer.ts';
import { listOffers } from './list-offers.ts';
import { priceOffer } from './price-offer.ts';
import { priceOffers } from './price-offers.ts';
import { readOffer } from './read-offer.ts';
import { toQuoteRecord } from './records.ts';
import { updateOffer } from './update-offer.ts';

const tag = 'Offers';
const one = { 200: { description: 'The offer.', schema: dataOf(offerRecord) } };
const money =
  "Each line: `unit_price` (default: the product's price) × `quantity` (up to 3 decimals) × (1 − `discount_percent`/100), rounded half-up to the cent; `subtotal` is the sum of the lines, `discount` an amount (not a percentage, at most the subtotal) taken off it, `total` what remains. All computed in integer cents.";
const statuses =
  'Statuses: draft → sent | expired; sent → draft | accepted | rejected | expired; accepted, rejected and expired are final (409 otherwise). Lines, customer, discount, notes and validity change only while draft or sent.';

export const offerRoutes = [
  defineRoute({
    method: 'GET',
    path: '/offers',
    access: { permission: 'offers.read' },
    operationId: 'listOffers',
    summary: 'List offers',
    tag,
    query: offerListQuery,
    responses: { 200: { description: 'A page of offers.', schema: pageOf(offerRecord) } },
    async handler({ query, caller, baseUrl, db }) {
      const { rows, total } = await listOffers(db, caller.companyId, query);
      return pageReply(rows, total, query, baseUrl, {
        status: query.status,
        customer_id: query.customer_id,
      });
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/offers',
    access: { permission: 'offers.create' },
    operationId: 'createOffer',
    summary: 'Create an offer',
    description: `Created as a draft. ${money}`,
    tag,
    idempotent: true,
    body: offerInput,
    responses: {
      201: {
        description: 'The offer, created.',
        schema: dataOf(offerRecord),
        headers: { Location: 'URL of the new offer.' },
      },
    },
    async handler({ body, caller, services, baseUrl, db }) {
      const offer = await createOffer(
        services.storage,
        db,
        caller.companyId,
        body,
        services.clock.now(),
      );
      return created(offer, `${baseUrl}/${offer.id}`);
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/offers/quote',
    access: { permission: 'offers.quote' },
    operationId: 'quoteOffer',
    summary: 'Compute an offer without saving it',
    description: `${money} \`warnings\` lists stock-managed products whose stock (all warehouses) is short of the quantity asked; the quote does not fail for it.`,
    tag,
    body: offerInput,
    responses: { 200: { description: 'The quote.', schema: dataOf(quoteRecord) } },
    async handler({ body, caller, db }) {
      return ok(toQuoteRecord(await priceOffer(db, caller.companyId, body)));
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/offers/quote/bulk',
    access: { permission: 'offers.quote' },
    operationId: 'quoteOffers',
    summary: 'Compute up to 100 offers without saving them',
    description:
      'Quotes in the order sent. If any offer is invalid, 422 with every error keyed `offers.N.field`.',
    tag,
    body: quoteBulkInput,
    responses: {
      200: { description: 'The quotes, in order.', schema: dataOf(z.array(quoteRecord)) },
    },
    async handler({ body, caller, db }) {
      return ok(await priceOffers(db, caller.companyId, body.offers));
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/offers/{offer}',
    access: { permission: 'offers.read' },
    operationId: 'getOffer',
    summary: 'Get an offer',
    tag,
    params: offerParams,
    responses: one,
    async handler({ params, caller, db }) {
      return ok(await readOffer(db, caller.companyId, params.offer));
    },
  }),
  ...replaceAndPatchRoutes({
    path: '/offers/{offer}',
    access: { permission: 'offers.update' },
    tag,
    params: offerParams,
    responses: {
      ...one,
      409: { description: 'The status cannot change so, or the offer is final.' },
    },
    replace: {
      operationId: 'replaceOffer',
      summary: 'Replace an offer',
      description: `Validates like create, plus an optional \`status\`. Lines are priced anew. ${statuses}`,
      body: offerReplace,
    },
    patch: {
      operationId: 'updateOffer',
      summary: 'Change an offer or its status',
      description: `Only what is sent changes; \`items\`, when sent, replace every line. ${statuses}`,
      body: offerPatch,
    },
    update: ({ params, body, caller, services, db }, mode) =>
      updateOffer(services, db, caller.companyId, params.offer, body, mode, services.clock.now()),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/offers/{offer}',
    access: { permission: 'offers.delete' },
    operationId: 'deleteOffer',
    summary: 'Delete an offer',
    description: 'An accepted offer cannot be deleted (409).',
    tag,
    params: offerParams,
    responses: {
      204: { description: 'Deleted.' },
      409: { description: 'The offer was accepted.' },
    },
    async handler({ params, caller, services, db }) {
      await deleteOffer(services.storage, db, caller.companyId, params.offer);
      return noContent();
    },
  }),
];
