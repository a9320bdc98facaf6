import type { Generated } from 'kysely';
import type { ProductCondition, ProductType } from '../../../shared/products.ts';

export interface ProductTables {
  products: {
    id: Generated<number>;
    company_id: number;
    code: string;
    name: string;
    type: ProductType;
    condition: ProductCondition;
    unit: string;
    price_cents: number;
    ncm: string | null;
    /** 0/1 on SQLite, boolean on PostgreSQL: read it through `Boolean()`. */
    manage_stock: boolean | number;
    created_at: string;
    updated_at: string;
  };
  product_categories: {
    product_id: number;
    category_id: number;
  };
  product_images: {
    id: Generated<number>;
    product_id: number;
    position: number;
    url: string;
    alt_text: string | null;
  };
  product_components: {
    assembly_id: number;
    component_id: number;
    position: number;
    quantity_milli: number;
  };
}
