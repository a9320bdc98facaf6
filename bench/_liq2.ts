import { renderLiquid } from '../server/templates/liquid.ts';
import { receiptSource, receiptData } from './templates.ts';
for (let i = 0; i < 20000; i++) renderLiquid('receipt', receiptSource, receiptData);
