//! `GET /`: the database account. The SDKs read it when a client is created and send every
//! later request to the endpoints it names, so they name the gateway itself.

use actix_web::HttpResponse;
use serde_json::json;

use crate::error::Result;
use crate::headers::Reply;
use crate::request::Ctx;

pub fn read(ctx: &Ctx) -> Result<HttpResponse> {
    let endpoint = endpoint(ctx);
    let location = json!([{"name": "local", "databaseAccountEndpoint": endpoint}]);
    // A JSON string, as the service sends it: the SDKs parse it for their query limits.
    let query_engine = json!({
        "maxSqlQueryInputLength": 262144,
        "maxJoinsPerSqlQuery": 5,
        "maxLogicalAndPerSqlQuery": 500,
        "maxLogicalOrPerSqlQuery": 500,
        "maxUdfRefPerSqlQuery": 10,
        "maxInExpressionItemsCount": 16000,
        "queryMaxInMemorySortDocumentCount": 500,
        "maxQueryRequestTimeoutFraction": 0.9,
        "sqlAllowNonFiniteNumbers": false,
        "sqlAllowAggregateFunctions": true,
        "sqlAllowSubQuery": true,
        "sqlAllowScalarSubQuery": true,
        "allowNewKeywordsAsReservedWords": true,
        "sqlAllowLike": true,
        "sqlAllowGroupByClause": true,
        "maxSpatialQueryCells": 12,
        "spatialMaxGeometryPointCount": 256,
        "sqlDisableQueryILOptimization": false,
        "sqlDisableFilterPlanOptimization": false,
    })
    .to_string();
    let body = json!({
        "_self": "",
        "id": "localhost",
        "_rid": "localhost",
        "media": "//media/",
        "addresses": "//addresses/",
        "_dbs": "//dbs/",
        "writableLocations": location,
        "readableLocations": location,
        "enableMultipleWriteLocations": false,
        "userReplicationPolicy": {"asyncReplication": false, "minReplicaSetSize": 1, "maxReplicasetSize": 1},
        "userConsistencyPolicy": {"defaultConsistencyLevel": "Session"},
        "systemReplicationPolicy": {"minReplicaSetSize": 1, "maxReplicasetSize": 1},
        "readPolicy": {"primaryReadCoefficient": 1, "secondaryReadCoefficient": 1},
        "queryEngineConfiguration": query_engine,
    });
    Ok(Reply::new(200, 0.0).json(body.to_string()))
}

/// `http://ADDR/` for the address the gateway listens on; when that is 0.0.0.0 (any), the
/// address the client reached it by (its `Host` header).
fn endpoint(ctx: &Ctx) -> String {
    let addr = ctx.state.addr;
    if addr.ip().is_unspecified() {
        if let Some(host) = crate::headers::get(ctx.headers(), "host") {
            if !host.contains(['/', ' ', '"']) {
                return format!("{}://{host}/", ctx.state.scheme);
            }
        }
    }
    format!("{}://{addr}/", ctx.state.scheme)
}
