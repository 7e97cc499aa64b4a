package tollgate.es;

import java.io.IOException;
import java.math.BigDecimal;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.SortedNumericDocValues;
import org.apache.lucene.search.Query;
import org.elasticsearch.common.Explicit;
import org.elasticsearch.common.xcontent.support.XContentMapValues;
import org.elasticsearch.index.fielddata.FieldDataContext;
import org.elasticsearch.index.fielddata.IndexFieldData;
import org.elasticsearch.index.fielddata.IndexNumericFieldData;
import org.elasticsearch.index.fielddata.LeafNumericFieldData;
import org.elasticsearch.index.fielddata.SortedNumericDoubleValues;
import org.elasticsearch.index.fielddata.plain.LeafDoubleFieldData;
import org.elasticsearch.index.fielddata.plain.SortedNumericIndexFieldData;
import org.elasticsearch.index.mapper.DocumentParserContext;
import org.elasticsearch.index.mapper.FieldMapper;
import org.elasticsearch.index.mapper.MapperBuilderContext;
import org.elasticsearch.index.mapper.NumberFieldMapper;
import org.elasticsearch.index.mapper.NumberFieldMapper.NumberType;
import org.elasticsearch.index.mapper.SimpleMappedFieldType;
import org.elasticsearch.index.mapper.SourceValueFetcher;
import org.elasticsearch.index.mapper.TextSearchInfo;
import org.elasticsearch.index.mapper.ValueFetcher;
import org.elasticsearch.index.query.SearchExecutionContext;
import org.elasticsearch.script.field.DocValuesScriptFieldFactory;
import org.elasticsearch.script.field.ScaledFloatDocValuesField;
import org.elasticsearch.search.DocValueFormat;
import org.elasticsearch.search.aggregations.support.ValuesSourceType;
import org.elasticsearch.xcontent.XContentBuilder;
import org.elasticsearch.xcontent.XContentParser;

/**
 * {@code scaled_float}: a double stored as {@code round(value * scaling_factor)} in a long
 * (points + doc values), read back divided by the factor. Written for the local dev
 * stack against the Elasticsearch 8.19 mapper API; mapping syntax matches the official type.
 */
final class ScaledFloatFieldMapper extends FieldMapper {

    static final String CONTENT_TYPE = "scaled_float";

    static final TypeParser PARSER = new TypeParser(
        (name, ctx) -> new Builder(
            name,
            IGNORE_MALFORMED_SETTING.get(ctx.getSettings()),
            NumberFieldMapper.COERCE_SETTING.get(ctx.getSettings()) // numbers coerce by default
        )
    );

    private static ScaledFloatFieldMapper cast(FieldMapper m) {
        return (ScaledFloatFieldMapper) m;
    }

    static final class Builder extends FieldMapper.Builder {
        private final Parameter<Boolean> indexed = Parameter.indexParam(m -> cast(m).indexed, true);
        private final Parameter<Boolean> docValues = Parameter.docValuesParam(m -> cast(m).docValues, true);
        private final Parameter<Boolean> stored = Parameter.storeParam(m -> cast(m).stored, false);
        private final Parameter<Explicit<Boolean>> ignoreMalformed;
        private final Parameter<Explicit<Boolean>> coerce;
        private final Parameter<Double> scalingFactor = new Parameter<Double>(
            "scaling_factor",
            false,
            () -> null,
            (n, c, o) -> XContentMapValues.nodeDoubleValue(o),
            m -> cast(m).scalingFactor,
            XContentBuilder::field,
            Objects::toString
        ).addValidator(v -> {
            if (v == null) {
                throw new IllegalArgumentException("Field [scaling_factor] is required");
            }
            if (Double.isFinite(v) == false || v <= 0) {
                throw new IllegalArgumentException("[scaling_factor] must be a positive number, got [" + v + "]");
            }
        });
        private final Parameter<Double> nullValue = new Parameter<Double>(
            "null_value",
            false,
            () -> null,
            (n, c, o) -> o == null ? null : XContentMapValues.nodeDoubleValue(o),
            m -> cast(m).nullValue,
            XContentBuilder::field,
            Objects::toString
        ).acceptsNull();
        private final Parameter<Map<String, String>> meta = Parameter.metaParam();
        private final boolean ignoreMalformedByDefault;
        private final boolean coerceByDefault;

        Builder(String name, boolean ignoreMalformedByDefault, boolean coerceByDefault) {
            super(name);
            this.ignoreMalformedByDefault = ignoreMalformedByDefault;
            this.coerceByDefault = coerceByDefault;
            this.ignoreMalformed = Parameter.explicitBoolParam("ignore_malformed", true, m -> cast(m).ignoreMalformed, ignoreMalformedByDefault);
            this.coerce = Parameter.explicitBoolParam("coerce", true, m -> cast(m).coerce, coerceByDefault);
        }

        @Override
        protected Parameter<?>[] getParameters() {
            return new Parameter<?>[] { indexed, docValues, stored, ignoreMalformed, meta, scalingFactor, coerce, nullValue };
        }

        @Override
        public ScaledFloatFieldMapper build(MapperBuilderContext context) {
            FieldType type = new FieldType(
                context.buildFullName(leafName()),
                indexed.getValue(),
                stored.getValue(),
                docValues.getValue(),
                meta.getValue(),
                scalingFactor.getValue(),
                nullValue.getValue()
            );
            return new ScaledFloatFieldMapper(leafName(), type, builderParams(this, context), this);
        }
    }

    static final class FieldType extends SimpleMappedFieldType {
        private final double factor;
        private final Double nullValue;

        FieldType(String name, boolean indexed, boolean stored, boolean docValues, Map<String, String> meta, double factor, Double nullValue) {
            super(name, indexed, stored, docValues, TextSearchInfo.SIMPLE_MATCH_WITHOUT_TERMS, meta);
            this.factor = factor;
            this.nullValue = nullValue;
        }

        @Override
        public String typeName() {
            return CONTENT_TYPE;
        }

        @Override
        public boolean isSearchable() {
            return isIndexed() || hasDocValues();
        }

        /** value * factor, computed in decimal so that e.g. 79.99 * 100 gives 7999 rather than 7998.999... */
        private double scale(Object value) {
            double d = NumberType.DOUBLE.parse(value, false).doubleValue();
            return new BigDecimal(Double.toString(d)).multiply(BigDecimal.valueOf(factor)).doubleValue();
        }

        @Override
        public Query termQuery(Object value, SearchExecutionContext context) {
            failIfNotIndexedNorDocValuesFallback(context);
            return NumberType.LONG.termQuery(name(), Math.round(scale(value)), isIndexed());
        }

        @Override
        public Query termsQuery(Collection<?> values, SearchExecutionContext context) {
            failIfNotIndexedNorDocValuesFallback(context);
            if (isIndexed() == false) {
                return super.termsQuery(values, context);
            }
            List<Long> scaled = new ArrayList<>(values.size());
            for (Object v : values) {
                scaled.add(Math.round(scale(v)));
            }
            return NumberType.LONG.termsQuery(name(), scaled);
        }

        @Override
        public Query rangeQuery(Object lower, Object upper, boolean includeLower, boolean includeUpper, SearchExecutionContext context) {
            failIfNotIndexedNorDocValuesFallback(context);
            Long lo = null;
            if (lower != null) {
                double d = scale(lower);
                lo = Math.round(Math.ceil(includeLower ? d : Math.nextUp(d)));
            }
            Long hi = null;
            if (upper != null) {
                double d = scale(upper);
                hi = Math.round(Math.floor(includeUpper ? d : Math.nextDown(d)));
            }
            return NumberType.LONG.rangeQuery(name(), lo, hi, true, true, hasDocValues(), context, isIndexed());
        }

        @Override
        public IndexFieldData.Builder fielddataBuilder(FieldDataContext ctx) {
            failIfNoDocValues();
            return (cache, breakers) -> {
                IndexNumericFieldData longs = new SortedNumericIndexFieldData.Builder(
                    name(),
                    IndexNumericFieldData.NumericType.LONG,
                    (dv, n) -> { throw new UnsupportedOperationException("scripts read the scaled value"); },
                    isIndexed()
                ).build(cache, breakers);
                return new ScaledIndexFieldData(longs, factor, isIndexed());
            };
        }

        @Override
        public ValueFetcher valueFetcher(SearchExecutionContext context, String format) {
            if (format != null) {
                throw new IllegalArgumentException("Field [" + name() + "] of type [" + typeName() + "] doesn't support formats.");
            }
            return new SourceValueFetcher(name(), context, nullValue) {
                @Override
                protected Object parseSourceValue(Object value) {
                    Double d = "".equals(value) ? nullValue : NumberType.DOUBLE.parse(value, true).doubleValue();
                    return d == null ? null : Math.round(d * factor) / factor;
                }
            };
        }

        @Override
        public Object valueForDisplay(Object value) {
            return value == null ? null : ((Number) value).longValue() / factor;
        }

        @Override
        public DocValueFormat docValueFormat(String format, ZoneId timeZone) {
            checkNoTimeZone(timeZone);
            return format == null ? DocValueFormat.RAW : new DocValueFormat.Decimal(format);
        }
    }

    /** Long doc values seen as doubles: the stored long divided by the scaling factor. */
    static final class ScaledIndexFieldData extends IndexNumericFieldData {
        private final IndexNumericFieldData longs;
        private final double factor;
        private final boolean indexed;

        ScaledIndexFieldData(IndexNumericFieldData longs, double factor, boolean indexed) {
            this.longs = longs;
            this.factor = factor;
            this.indexed = indexed;
        }

        @Override
        public String getFieldName() {
            return longs.getFieldName();
        }

        @Override
        public ValuesSourceType getValuesSourceType() {
            return longs.getValuesSourceType();
        }

        @Override
        public NumericType getNumericType() {
            return NumericType.DOUBLE;
        }

        @Override
        protected boolean sortRequiresCustomComparator() {
            return true;
        }

        @Override
        protected boolean isIndexed() {
            return indexed;
        }

        @Override
        public LeafNumericFieldData load(LeafReaderContext ctx) {
            return new ScaledLeaf(longs.load(ctx), factor);
        }

        @Override
        public LeafNumericFieldData loadDirect(LeafReaderContext ctx) throws Exception {
            return new ScaledLeaf(longs.loadDirect(ctx), factor);
        }
    }

    static final class ScaledLeaf extends LeafDoubleFieldData {
        private final LeafNumericFieldData longs;
        private final double factor;

        ScaledLeaf(LeafNumericFieldData longs, double factor) {
            this.longs = longs;
            this.factor = factor;
        }

        @Override
        public long ramBytesUsed() {
            return longs.ramBytesUsed();
        }

        @Override
        public void close() {
            longs.close();
        }

        @Override
        public SortedNumericDoubleValues getDoubleValues() {
            SortedNumericDocValues in = longs.getLongValues();
            return new SortedNumericDoubleValues() {
                @Override
                public boolean advanceExact(int doc) throws IOException {
                    return in.advanceExact(doc);
                }

                @Override
                public double nextValue() throws IOException {
                    return in.nextValue() / factor;
                }

                @Override
                public int docValueCount() {
                    return in.docValueCount();
                }
            };
        }

        @Override
        public DocValuesScriptFieldFactory getScriptFieldFactory(String name) {
            return new ScaledFloatDocValuesField(getDoubleValues(), name);
        }
    }

    private final boolean indexed;
    private final boolean docValues;
    private final boolean stored;
    private final Explicit<Boolean> ignoreMalformed;
    private final Explicit<Boolean> coerce;
    private final Double scalingFactor;
    private final Double nullValue;
    private final boolean ignoreMalformedByDefault;
    private final boolean coerceByDefault;

    private ScaledFloatFieldMapper(String leafName, FieldType type, BuilderParams params, Builder b) {
        super(leafName, type, params);
        this.indexed = b.indexed.getValue();
        this.docValues = b.docValues.getValue();
        this.stored = b.stored.getValue();
        this.ignoreMalformed = b.ignoreMalformed.getValue();
        this.coerce = b.coerce.getValue();
        this.scalingFactor = b.scalingFactor.getValue();
        this.nullValue = b.nullValue.getValue();
        this.ignoreMalformedByDefault = b.ignoreMalformedByDefault;
        this.coerceByDefault = b.coerceByDefault;
    }

    @Override
    public FieldType fieldType() {
        return (FieldType) super.fieldType();
    }

    @Override
    protected String contentType() {
        return CONTENT_TYPE;
    }

    @Override
    public boolean ignoreMalformed() {
        return ignoreMalformed.value();
    }

    @Override
    public FieldMapper.Builder getMergeBuilder() {
        return new Builder(leafName(), ignoreMalformedByDefault, coerceByDefault).init(this);
    }

    @Override
    protected void parseCreateField(DocumentParserContext context) throws IOException {
        XContentParser parser = context.parser();
        Double value;
        if (parser.currentToken() == XContentParser.Token.VALUE_NULL
            || (parser.currentToken() == XContentParser.Token.VALUE_STRING && parser.textLength() == 0)) {
            value = null;
        } else {
            try {
                value = NumberType.DOUBLE.parse(parser, coerce.value()).doubleValue();
            } catch (IllegalArgumentException e) { // includes XContentParseException
                if (ignoreMalformed.value() && parser.currentToken().isValue()) {
                    context.addIgnoredField(fullPath());
                    return;
                }
                throw e;
            }
        }
        if (value == null) {
            value = nullValue;
        }
        if (value == null) {
            return;
        }
        double scaled = value * scalingFactor;
        if (Double.isFinite(scaled) == false) {
            if (ignoreMalformed.value()) {
                context.addIgnoredField(fullPath());
                return;
            }
            throw new IllegalArgumentException("[scaled_float] only supports finite values, but got [" + value + "]");
        }
        NumberType.LONG.addFields(context.doc(), fullPath(), Math.round(scaled), indexed, docValues, stored);
        if (docValues == false && (indexed || stored)) {
            context.addToFieldNames(fullPath());
        }
    }
}
