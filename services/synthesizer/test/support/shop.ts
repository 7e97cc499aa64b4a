/**
 * 300 shop resources for the recall tests: 50 kinds in each of 3 tenants × 2 environments.
 * `team-a` describes them in English, `team-cn` in Chinese, `team-mixed` in both. Many kinds
 * mention orders (order ids on items, returns, invoices, shipments…) so the orders resource has
 * real competition. Staging names end in `_stg` (a tenant's bundle names each resource once).
 * Each scope's resources carry their own version number, so a tool's `resource_version` says
 * which scope it came from.
 */
import type { FieldSpec, ResourceDescriptor } from '@tollgate/core';
import type { PolicyBundle } from '@tollgate/policy';
import { agent, bundle, resource } from './fixtures.js';

type Field = [name: string, en: string, zh: string];
type Kind = [name: string, en: string, zh: string, fields: Field[]];

const ORDER_REF: Field = ['order_id', 'Order the record belongs to', '所属订单号'];
const CUSTOMER_REF: Field = ['customer_id', 'Customer account id', '客户账号'];
const CREATED: Field = ['created_at', 'When the record was created', '创建时间'];

const KINDS: Kind[] = [
  [
    'es_orders',
    'Orders placed in the web shop, one document per order.',
    '网店订单，每个订单一条记录',
    [
      ['id', 'Order number, e.g. 12345', '订单号，例如 12345'],
      CUSTOMER_REF,
      ['total_amount', 'Order total in EUR', '订单总金额'],
      ['status', 'pending, paid, shipped or cancelled', '订单状态'],
      CREATED,
    ],
  ],
  [
    'es_order_items',
    'Line items of web shop orders: one document per product in an order.',
    '订单明细，每个商品一行',
    [ORDER_REF, ['sku', 'Product SKU', '商品编码'], ['quantity', 'Units ordered', '数量']],
  ],
  [
    'es_order_returns',
    'Returned goods with the reason given by the customer.',
    '退货申请及客户填写的原因',
    [ORDER_REF, ['reason', 'Why the goods came back', '退货原因'], CREATED],
  ],
  [
    'es_purchase_orders',
    'Purchase orders sent to suppliers for restocking.',
    '向供应商发出的采购单',
    [['supplier_id', 'Supplier', '供应商'], ['total_amount', 'Total to pay', '应付总额'], CREATED],
  ],
  [
    'es_invoices',
    'Invoices issued for orders.',
    '为订单开具的发票',
    [
      ORDER_REF,
      ['invoice_number', 'Invoice number', '发票号码'],
      ['amount', 'Invoiced amount', '开票金额'],
    ],
  ],
  [
    'es_shipments',
    'Parcels shipped to customers, with carrier and tracking number.',
    '发往客户的包裹，含承运商和运单号',
    [ORDER_REF, ['carrier', 'Carrier', '承运商'], ['tracking_number', 'Tracking number', '运单号']],
  ],
  [
    'es_payments',
    'Card and wallet payments captured for orders.',
    '订单的银行卡和钱包支付记录',
    [
      ORDER_REF,
      ['method', 'Payment method', '支付方式'],
      ['amount', 'Captured amount', '支付金额'],
    ],
  ],
  [
    'es_refunds',
    'Money paid back to customers.',
    '退还给客户的款项',
    [ORDER_REF, ['amount', 'Refunded amount', '退款金额'], CREATED],
  ],
  [
    'es_customers',
    'Customer accounts of the web shop.',
    '网店客户账户',
    [
      CUSTOMER_REF,
      ['email', 'Contact e-mail', '邮箱'],
      ['country', 'Country of residence', '国家'],
      CREATED,
    ],
  ],
  [
    'es_customer_addresses',
    'Delivery addresses saved by customers.',
    '客户保存的收货地址',
    [CUSTOMER_REF, ['city', 'City', '城市'], ['postcode', 'Postal code', '邮编']],
  ],
  [
    'es_products',
    'Product catalogue with prices and descriptions.',
    '商品目录，含价格和描述',
    [
      ['sku', 'Product SKU', '商品编码'],
      ['title', 'Product title', '商品名称'],
      ['price', 'List price', '标价'],
    ],
  ],
  [
    'es_inventory',
    'Stock levels per warehouse and product.',
    '各仓库各商品的库存',
    [
      ['sku', 'Product SKU', '商品编码'],
      ['warehouse', 'Warehouse', '仓库'],
      ['on_hand', 'Units on hand', '在库数量'],
    ],
  ],
  [
    'es_reviews',
    'Product reviews written by customers.',
    '客户撰写的商品评价',
    [['sku', 'Product SKU', '商品编码'], CUSTOMER_REF, ['rating', 'Stars, 1 to 5', '星级']],
  ],
  [
    'es_support_tickets',
    'Customer support tickets, often about an order.',
    '客服工单，常与订单有关',
    [ORDER_REF, CUSTOMER_REF, ['subject', 'Ticket subject', '工单主题']],
  ],
  [
    'es_carts',
    'Shopping carts not yet turned into orders.',
    '尚未下单的购物车',
    [CUSTOMER_REF, ['items', 'Items in the cart', '购物车商品'], CREATED],
  ],
  [
    'es_coupons',
    'Discount coupons and their redemption counts.',
    '优惠券及使用次数',
    [
      ['code', 'Coupon code', '优惠码'],
      ['discount', 'Discount rate', '折扣率'],
    ],
  ],
  [
    'es_suppliers',
    'Suppliers the shop buys goods from.',
    '网店的供应商',
    [
      ['supplier_id', 'Supplier', '供应商'],
      ['country', 'Country', '国家'],
    ],
  ],
  [
    'es_warehouses',
    'Warehouses and their addresses.',
    '仓库及其地址',
    [
      ['warehouse', 'Warehouse', '仓库'],
      ['city', 'City', '城市'],
    ],
  ],
  [
    'es_employees',
    'Shop staff and their teams.',
    '员工及所属团队',
    [
      ['employee_id', 'Employee', '员工'],
      ['team', 'Team', '团队'],
    ],
  ],
  [
    'es_web_sessions',
    'Visits to the web shop with pages viewed.',
    '网店访问会话及浏览页面',
    [
      ['session_id', 'Session', '会话'],
      ['pages', 'Pages viewed', '浏览页数'],
    ],
  ],
];

const FILLER: [string, string, string][] = [
  ['es_app_logs', 'Application log lines of the shop backend.', '网店后端应用日志'],
  ['es_audit_trail', 'Administrative actions taken in the back office.', '后台管理操作记录'],
  ['es_newsletters', 'Newsletter campaigns and their recipients.', '电子报活动及收件人'],
  ['es_search_queries', 'What visitors typed into the shop search box.', '访客在搜索框输入的内容'],
  ['es_price_history', 'Past prices of each product.', '商品历史价格'],
  ['es_tax_rates', 'VAT rates per country and product class.', '各国各类商品增值税率'],
  ['es_currencies', 'Exchange rates used for display prices.', '展示价格所用汇率'],
  ['es_banners', 'Marketing banners shown on the home page.', '首页营销横幅'],
  ['es_affiliates', 'Partner sites that refer visitors.', '引流合作网站'],
  ['es_gift_cards', 'Gift cards sold and their balances.', '售出的礼品卡及余额'],
  ['es_loyalty_points', 'Loyalty points earned and spent.', '会员积分获得与使用'],
  ['es_wishlists', 'Products customers saved for later.', '客户收藏的商品'],
  ['es_ab_tests', 'A/B experiments and their variants.', 'A/B 实验及其版本'],
  ['es_page_views', 'Page views of the storefront.', '店铺页面浏览量'],
  ['es_errors', 'Errors raised by the storefront.', '店铺前端错误'],
  ['es_deployments', 'Releases of the shop software.', '网店软件发布记录'],
  ['es_feature_flags', 'Feature switches and who sees them.', '功能开关及适用人群'],
  ['es_translations', 'Interface texts in each language.', '界面多语言文本'],
  ['es_media_assets', 'Images and videos of products.', '商品图片和视频'],
  ['es_categories', 'Product categories and their tree.', '商品分类树'],
  ['es_brands', 'Brands sold in the shop.', '在售品牌'],
  ['es_store_locations', 'Physical stores and opening hours.', '实体门店及营业时间'],
  ['es_delivery_slots', 'Delivery time windows offered at checkout.', '结账时可选配送时段'],
  ['es_fraud_checks', 'Fraud screening results of payments.', '支付欺诈检测结果'],
  ['es_chargebacks', 'Card chargebacks disputed by banks.', '银行发起的拒付'],
  ['es_surveys', 'Customer satisfaction survey answers.', '客户满意度调查答卷'],
  ['es_social_mentions', 'Mentions of the shop on social media.', '社交媒体上的提及'],
  ['es_ad_spend', 'Advertising spend per channel and day.', '各渠道每日广告支出'],
  ['es_sla_breaches', 'Missed service level targets.', '未达成的服务水平目标'],
  ['es_backups', 'Database backup runs and their outcome.', '数据库备份运行结果'],
];

export const TENANTS = ['team-a', 'team-cn', 'team-mixed'] as const;
export const ENVIRONMENTS = ['prod', 'staging'] as const;
export type ShopTenant = (typeof TENANTS)[number];

export interface ShopScope {
  tenant: ShopTenant;
  environment: (typeof ENVIRONMENTS)[number];
  /** The version every resource of this scope has. */
  version: number;
  resources: ResourceDescriptor[];
}

const text = (tenant: ShopTenant, en: string, zh: string): string =>
  tenant === 'team-a' ? en : tenant === 'team-cn' ? zh : `${en} ${zh}`;

function fieldsOf(tenant: ShopTenant, fields: Field[]): Record<string, FieldSpec> {
  return Object.fromEntries(
    fields.map(([name, en, zh]) => [
      name,
      {
        type: 'keyword',
        filterable: true,
        returnable: true,
        aggregatable: true,
        description: text(tenant, en, zh),
      },
    ]),
  );
}

/** The shop's 6 scopes, 50 resources each. */
export function shopScopes(): ShopScope[] {
  const kinds: Kind[] = [
    ...KINDS,
    ...FILLER.map(([name, en, zh]): Kind => [
      name,
      en,
      zh,
      [['id', 'Record id', '记录编号'], CREATED],
    ]),
  ];
  return TENANTS.flatMap((tenant, t) =>
    ENVIRONMENTS.map((environment, e) => ({
      tenant,
      environment,
      version: 1 + t * 2 + e,
      resources: kinds.map(([name, en, zh, fields]) =>
        resource(tenant, environment === 'prod' ? name : `${name}_stg`, {
          environment,
          description: text(tenant, en, zh),
          labels: { domain: name.replace(/^es_/, '').split('_')[0] ?? 'shop' },
          fields: fieldsOf(tenant, fields),
          access: { allowedRoles: ['reader'] },
        }),
      ),
    })),
  );
}

/** One tenant's bundle over its scopes: the `analyst` agent reads everything. */
export function shopBundle(tenant: string, scopes: ShopScope[]): PolicyBundle {
  return bundle({
    tenant,
    version: 1,
    agents: [agent(tenant, 'analyst', ['reader'])],
    policies: [],
    resources: scopes
      .filter((s) => s.tenant === tenant)
      .flatMap((s) => s.resources.map((descriptor) => ({ descriptor, version: s.version }))),
  });
}
