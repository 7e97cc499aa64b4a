/**
 * 300 synthetic resources for the recall tests: 50 kinds of shop data in each of 3 tenants × 2
 * environments. `team-a` writes English, `team-cn` Chinese, `team-mixed` English with Chinese
 * display names. Many resources mention orders (order ids on shipments, invoices, refunds…) so
 * the orders resource has real competition.
 */
import type { RecallDocument } from '../src/index.js';

interface Kind {
  name: string;
  en: string;
  zh: string;
  fields: [name: string, en: string, zh: string][];
}

const ORDER_REF: [string, string, string] = [
  'order_id',
  'Order the record belongs to',
  '所属订单号',
];
const CUSTOMER_REF: [string, string, string] = ['customer_id', 'Customer account id', '客户账号'];
const CREATED: [string, string, string] = ['created_at', 'When the record was created', '创建时间'];

const KINDS: Kind[] = [
  {
    name: 'es_orders',
    en: 'Orders placed in the web shop, one document per order.',
    zh: '网店订单，每个订单一条记录',
    fields: [
      ['order_id', 'Order number, e.g. 12345', '订单号，例如 12345'],
      CUSTOMER_REF,
      ['total_amount', 'Order total in EUR', '订单总金额（欧元）'],
      ['status', 'pending, paid, shipped or cancelled', '订单状态'],
      CREATED,
    ],
  },
  {
    name: 'es_order_items',
    en: 'Line items of web shop orders: one document per product in an order.',
    zh: '订单明细，每个商品一行',
    fields: [
      ORDER_REF,
      ['sku', 'Product SKU', '商品编码'],
      ['quantity', 'Units ordered', '数量'],
      ['unit_price', 'Price per unit', '单价'],
    ],
  },
  {
    name: 'es_order_returns',
    en: 'Returned goods with the reason given by the customer.',
    zh: '退货申请及客户填写的原因',
    fields: [ORDER_REF, ['reason', 'Why the goods came back', '退货原因'], CREATED],
  },
  {
    name: 'es_purchase_orders',
    en: 'Purchase orders sent to suppliers for restocking.',
    zh: '向供应商发出的采购单',
    fields: [
      ['supplier_id', 'Supplier', '供应商'],
      ['total_amount', 'Total to pay', '应付总额'],
      CREATED,
    ],
  },
  {
    name: 'es_customers',
    en: 'Customer accounts of the web shop.',
    zh: '网店客户账户',
    fields: [
      CUSTOMER_REF,
      ['email', 'Contact e-mail', '邮箱'],
      ['country', 'Country of residence', '国家'],
      CREATED,
    ],
  },
  {
    name: 'es_customer_addresses',
    en: 'Delivery addresses saved by customers.',
    zh: '客户保存的收货地址',
    fields: [CUSTOMER_REF, ['city', 'City', '城市'], ['postcode', 'Postal code', '邮编']],
  },
  {
    name: 'es_invoices',
    en: 'Invoices issued to customers.',
    zh: '开给客户的发票',
    fields: [
      ['invoice_id', 'Invoice number', '发票号'],
      ORDER_REF,
      ['total_amount', 'Invoiced amount', '开票金额'],
      CREATED,
    ],
  },
  {
    name: 'es_invoice_lines',
    en: 'Lines of customer invoices.',
    zh: '发票明细行',
    fields: [
      ['invoice_id', 'Invoice number', '发票号'],
      ['amount', 'Line amount', '行金额'],
    ],
  },
  {
    name: 'es_payments',
    en: 'Card and bank payments received.',
    zh: '收到的银行卡和转账付款',
    fields: [
      ['payment_id', 'Payment reference', '付款流水号'],
      ORDER_REF,
      ['amount', 'Amount paid', '付款金额'],
      CREATED,
    ],
  },
  {
    name: 'es_refunds',
    en: 'Refunds paid back to customers.',
    zh: '退还给客户的退款',
    fields: [ORDER_REF, ['amount', 'Refunded amount', '退款金额'], CREATED],
  },
  {
    name: 'es_shipments',
    en: 'Parcels shipped to customers, with carrier and tracking number.',
    zh: '发给客户的包裹，含承运商和运单号',
    fields: [
      ORDER_REF,
      ['carrier', 'Carrier name', '承运商'],
      ['tracking_number', 'Tracking number', '运单号'],
      CREATED,
    ],
  },
  {
    name: 'es_shipment_events',
    en: 'Tracking events of shipments.',
    zh: '物流跟踪事件',
    fields: [
      ['tracking_number', 'Tracking number', '运单号'],
      ['event', 'What happened', '事件'],
      CREATED,
    ],
  },
  {
    name: 'es_support_tickets',
    en: 'Customer support tickets.',
    zh: '客服工单',
    fields: [
      ['ticket_id', 'Ticket number', '工单号'],
      CUSTOMER_REF,
      ['subject', 'Subject line', '标题'],
      CREATED,
    ],
  },
  {
    name: 'es_ticket_comments',
    en: 'Comments on support tickets.',
    zh: '工单评论',
    fields: [
      ['ticket_id', 'Ticket number', '工单号'],
      ['body', 'Comment text', '评论内容'],
    ],
  },
  {
    name: 'es_products',
    en: 'Product catalogue: one document per SKU.',
    zh: '商品目录，每个 SKU 一条',
    fields: [
      ['sku', 'Product SKU', '商品编码'],
      ['title', 'Product name', '商品名称'],
      ['price', 'List price', '标价'],
    ],
  },
  {
    name: 'es_product_reviews',
    en: 'Customer reviews of products.',
    zh: '商品评价',
    fields: [
      ['sku', 'Product SKU', '商品编码'],
      ['rating', 'Stars, 1 to 5', '评分'],
      ['text', 'Review text', '评价内容'],
    ],
  },
  {
    name: 'es_inventory',
    en: 'Stock levels per warehouse and product.',
    zh: '各仓库商品库存',
    fields: [
      ['sku', 'Product SKU', '商品编码'],
      ['warehouse_id', 'Warehouse', '仓库'],
      ['on_hand', 'Units in stock', '在库数量'],
    ],
  },
  {
    name: 'es_app_logs',
    en: 'Application logs of the shop backend.',
    zh: '商城后端应用日志',
    fields: [
      ['level', 'Log level', '日志级别'],
      ['message', 'Log message', '日志内容'],
      ['service', 'Emitting service', '服务名'],
    ],
  },
  {
    name: 'es_audit_logs',
    en: 'Audit trail of admin actions.',
    zh: '管理员操作审计日志',
    fields: [['actor', 'Who acted', '操作人'], ['action', 'What was done', '操作'], CREATED],
  },
  {
    name: 'es_access_logs',
    en: 'HTTP access logs of the web front end.',
    zh: '网站访问日志',
    fields: [
      ['path', 'Requested path', '请求路径'],
      ['status_code', 'HTTP status', '状态码'],
      ['client_ip', 'Client address', '客户端地址'],
    ],
  },
  {
    name: 'es_metrics',
    en: 'Service metrics sampled every minute.',
    zh: '每分钟采集的服务指标',
    fields: [
      ['metric', 'Metric name', '指标名'],
      ['value', 'Sampled value', '采样值'],
    ],
  },
  {
    name: 'es_sessions',
    en: 'Web sessions of visitors.',
    zh: '访客会话',
    fields: [
      ['session_id', 'Session id', '会话号'],
      ['device', 'Device type', '设备类型'],
    ],
  },
  {
    name: 'es_users',
    en: 'Back-office user accounts.',
    zh: '后台用户账号',
    fields: [
      ['user_id', 'User id', '用户号'],
      ['role', 'Role', '角色'],
    ],
  },
  {
    name: 'es_subscriptions',
    en: 'Recurring subscriptions and their renewal dates.',
    zh: '订阅及续订日期',
    fields: [
      CUSTOMER_REF,
      ['plan', 'Plan name', '套餐'],
      ['renews_at', 'Next renewal', '下次续订时间'],
    ],
  },
  {
    name: 'es_carts',
    en: 'Shopping carts not yet checked out.',
    zh: '未结算的购物车',
    fields: [CUSTOMER_REF, ['items_count', 'Items in the cart', '商品件数']],
  },
  {
    name: 'es_coupons',
    en: 'Discount coupons and their redemptions.',
    zh: '优惠券及使用情况',
    fields: [
      ['code', 'Coupon code', '券码'],
      ['discount', 'Discount granted', '优惠金额'],
    ],
  },
  {
    name: 'es_promotions',
    en: 'Marketing promotions running in the shop.',
    zh: '商城营销促销活动',
    fields: [
      ['title', 'Promotion title', '活动名称'],
      ['starts_at', 'Start', '开始时间'],
    ],
  },
  {
    name: 'es_warehouses',
    en: 'Warehouses and their addresses.',
    zh: '仓库及地址',
    fields: [
      ['warehouse_id', 'Warehouse', '仓库'],
      ['city', 'City', '城市'],
    ],
  },
  {
    name: 'es_suppliers',
    en: 'Suppliers of products.',
    zh: '商品供应商',
    fields: [
      ['supplier_id', 'Supplier', '供应商'],
      ['country', 'Country', '国家'],
    ],
  },
  {
    name: 'es_employees',
    en: 'Employee directory.',
    zh: '员工通讯录',
    fields: [
      ['employee_id', 'Employee number', '工号'],
      ['department', 'Department', '部门'],
    ],
  },
  {
    name: 'es_payroll',
    en: 'Monthly payroll runs.',
    zh: '每月工资发放',
    fields: [
      ['employee_id', 'Employee number', '工号'],
      ['gross', 'Gross pay', '应发工资'],
    ],
  },
  {
    name: 'es_campaigns',
    en: 'Email marketing campaigns.',
    zh: '邮件营销活动',
    fields: [
      ['campaign_id', 'Campaign', '活动'],
      ['sent', 'Emails sent', '发送数'],
    ],
  },
  {
    name: 'es_emails',
    en: 'Transactional emails sent to customers.',
    zh: '发给客户的交易邮件',
    fields: [CUSTOMER_REF, ['template', 'Template name', '模板'], CREATED],
  },
  {
    name: 'es_notifications',
    en: 'Push notifications sent to the mobile app.',
    zh: '推送到手机应用的通知',
    fields: [
      ['user_id', 'Recipient', '接收人'],
      ['title', 'Title', '标题'],
    ],
  },
  {
    name: 'es_search_queries',
    en: 'Search queries typed by shoppers.',
    zh: '用户输入的搜索词',
    fields: [
      ['query', 'What was searched', '搜索内容'],
      ['results', 'Result count', '结果数'],
    ],
  },
  {
    name: 'es_clicks',
    en: 'Click stream of product pages.',
    zh: '商品页点击流',
    fields: [
      ['sku', 'Product SKU', '商品编码'],
      ['position', 'Rank clicked', '点击位置'],
    ],
  },
  {
    name: 'es_page_views',
    en: 'Page views of the web shop.',
    zh: '网店页面浏览量',
    fields: [
      ['path', 'Page path', '页面路径'],
      ['views', 'View count', '浏览次数'],
    ],
  },
  {
    name: 'es_error_events',
    en: 'Front-end JavaScript errors.',
    zh: '前端脚本错误',
    fields: [
      ['message', 'Error message', '错误信息'],
      ['browser', 'Browser', '浏览器'],
    ],
  },
  {
    name: 'es_deployments',
    en: 'Deployments of shop services.',
    zh: '服务部署记录',
    fields: [
      ['service', 'Service', '服务名'],
      ['version', 'Version', '版本'],
    ],
  },
  {
    name: 'es_incidents',
    en: 'Production incidents and post-mortems.',
    zh: '生产事故及复盘',
    fields: [
      ['severity', 'Severity', '级别'],
      ['summary', 'Summary', '摘要'],
    ],
  },
  {
    name: 'es_alerts',
    en: 'Monitoring alerts.',
    zh: '监控告警',
    fields: [
      ['rule', 'Alert rule', '告警规则'],
      ['state', 'Firing or resolved', '状态'],
    ],
  },
  {
    name: 'es_contracts',
    en: 'Contracts with business customers.',
    zh: '企业客户合同',
    fields: [CUSTOMER_REF, ['value', 'Contract value', '合同金额']],
  },
  {
    name: 'es_leads',
    en: 'Sales leads.',
    zh: '销售线索',
    fields: [
      ['company', 'Company', '公司'],
      ['source', 'Lead source', '来源'],
    ],
  },
  {
    name: 'es_opportunities',
    en: 'Sales opportunities in the pipeline.',
    zh: '销售商机',
    fields: [
      ['company', 'Company', '公司'],
      ['stage', 'Pipeline stage', '阶段'],
    ],
  },
  {
    name: 'es_quotes',
    en: 'Price quotes sent to business customers.',
    zh: '发给企业客户的报价单',
    fields: [CUSTOMER_REF, ['total_amount', 'Quoted total', '报价总额']],
  },
  {
    name: 'es_tax_rates',
    en: 'VAT rates per country.',
    zh: '各国增值税税率',
    fields: [
      ['country', 'Country', '国家'],
      ['rate', 'Rate', '税率'],
    ],
  },
  {
    name: 'es_exchange_rates',
    en: 'Daily currency exchange rates.',
    zh: '每日汇率',
    fields: [
      ['currency', 'Currency code', '币种'],
      ['rate', 'Rate to EUR', '对欧元汇率'],
    ],
  },
  {
    name: 'es_stores',
    en: 'Physical stores and their opening hours.',
    zh: '实体门店及营业时间',
    fields: [
      ['store_id', 'Store', '门店'],
      ['city', 'City', '城市'],
    ],
  },
  {
    name: 'es_loyalty_points',
    en: 'Loyalty points earned and spent by customers.',
    zh: '客户积分获取与使用',
    fields: [CUSTOMER_REF, ['points', 'Points', '积分']],
  },
  {
    name: 'es_gift_cards',
    en: 'Gift cards sold and their balance.',
    zh: '礼品卡销售及余额',
    fields: [
      ['card_id', 'Card number', '卡号'],
      ['balance', 'Balance', '余额'],
    ],
  },
];

export const TENANTS = ['team-a', 'team-cn', 'team-mixed'] as const;
export const ENVIRONMENTS = ['prod', 'staging'] as const;

/** The 300 documents: 50 kinds in every tenant and environment. */
export function syntheticResources(): RecallDocument[] {
  return TENANTS.flatMap((tenant) =>
    ENVIRONMENTS.flatMap((environment) =>
      KINDS.map((kind): RecallDocument => {
        const chinese = tenant === 'team-cn';
        return {
          id: `${tenant}/${environment}/${kind.name}`,
          tenant,
          environment,
          name: kind.name,
          description: chinese ? kind.zh : kind.en,
          labels:
            tenant === 'team-mixed'
              ? { domain: kind.name.replace(/^es_/, ''), 'display_name.zh': kind.zh }
              : { domain: kind.name.replace(/^es_/, '') },
          fields: kind.fields.map(([name, en, zh]) => ({ name, description: chinese ? zh : en })),
        };
      }),
    ),
  );
}

/** Every word of the synthetic corpus, for generated queries. */
export function corpusWords(): string[] {
  const words = KINDS.flatMap((kind) =>
    [kind.name, kind.en, kind.zh, ...kind.fields.flat()].join(' ').split(/[\s,.:;，、（）]+/),
  );
  return [...new Set(words.filter((w) => w !== ''))].sort();
}
