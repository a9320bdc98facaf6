/**
 * Printers that need no PC (docs/cloudprnt.md): a Star CloudPRNT printer polls ShopDesk
 * itself and is a member of its company like a print agent. This folder owns
 * `cloudprnt_printers` and works the queue only through printing's public operations. Its
 * routes (`routes.ts`) are wired into the route table by server/routes.ts, as every domain's.
 */
export { type AddedCloudPrntPrinter, addCloudPrntPrinter } from './add-printer.ts';
export { revokePrinter as revokeCloudPrntPrinter } from './printer-rows.ts';
