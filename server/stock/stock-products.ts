import type { Db } from '../storage/db.ts';
import type { RowLock } from '../storage/locks.ts';
import type { OutboxDeps } from '../webhooks/index.ts';

/** A product as stock needs it: which one, and whether it keeps stock. */
export interface StockProduct {
  id: number;
  code: string;
  manage_stock: boolean | number;
}

/**
 * What stock needs of products. Stock defines it and products implement it (the wiring
 * hands it over, server/app.ts): products show their stock and delete it with themselves,
 * so products import stock, and stock reaches products only through this.
 */
export interface StockProducts {
  /**
   * The company's products named by id or by code, in id order; with `lock`, held until
   * `db`'s transaction ends (PostgreSQL).
   */
  find(
    db: Db,
    companyId: number,
    by: { ids?: readonly number[]; codes?: readonly string[] },
    lock?: RowLock,
  ): Promise<StockProduct[]>;
  /** The company's product by id or code; NotFound when there is none. */
  read(db: Db, companyId: number, by: { id: number } | { code: string }): Promise<StockProduct>;
}

/** What a stock write works with: storage, the outbox, and products. */
export interface StockDeps extends OutboxDeps {
  stockProducts: StockProducts;
}
