package tollgate.es;

import java.util.List;
import java.util.function.Supplier;

import org.elasticsearch.Build;
import org.elasticsearch.client.internal.node.NodeClient;
import org.elasticsearch.cluster.service.ClusterService;
import org.elasticsearch.index.IndexVersion;
import org.elasticsearch.rest.BaseRestHandler;
import org.elasticsearch.rest.RestRequest;
import org.elasticsearch.rest.RestResponse;
import org.elasticsearch.rest.RestStatus;
import org.elasticsearch.xcontent.XContentBuilder;

/** {@code GET /} and {@code HEAD /}: the cluster banner that clients use for info() and ping(). */
final class RestRootAction extends BaseRestHandler {

    private final Supplier<ClusterService> clusterService;

    RestRootAction(Supplier<ClusterService> clusterService) {
        this.clusterService = clusterService;
    }

    @Override
    public String getName() {
        return "tollgate_root_action";
    }

    @Override
    public List<Route> routes() {
        return List.of(new Route(RestRequest.Method.GET, "/"), new Route(RestRequest.Method.HEAD, "/"));
    }

    @Override
    protected RestChannelConsumer prepareRequest(RestRequest request, NodeClient client) {
        return channel -> {
            ClusterService cs = clusterService.get();
            Build build = Build.current();
            XContentBuilder b = channel.newBuilder();
            b.startObject();
            b.field("name", cs.getNodeName());
            b.field("cluster_name", cs.getClusterName().value());
            b.field("cluster_uuid", cs.state().metadata().clusterUUID());
            b.startObject("version");
            b.field("number", build.qualifiedVersion());
            b.field("build_flavor", build.flavor());
            b.field("build_type", build.type().displayName());
            b.field("build_hash", build.hash());
            b.field("build_date", build.date());
            b.field("build_snapshot", build.isSnapshot());
            b.field("lucene_version", IndexVersion.current().luceneVersion().toString());
            b.field("minimum_wire_compatibility_version", build.minWireCompatVersion());
            b.field("minimum_index_compatibility_version", build.minIndexCompatVersion());
            b.endObject();
            b.field("tagline", "You Know, for Search");
            b.endObject();
            channel.sendResponse(new RestResponse(RestStatus.OK, b));
        };
    }
}
