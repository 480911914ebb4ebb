//! Users and permissions of a database, as Cosmos DB keeps them (REST "Users" and
//! "Permissions"): a user is a named holder of permissions; a permission grants `All` or `Read`
//! on one resource link (optionally one partition key of it). The engine stores and lists them;
//! resource tokens, which a permission is read with, are the HTTP edge's (the gateway signs them
//! with its master key), because only a request carries an authorization.
//!
//! They live in their own LMDB table (`table`), written by the writer thread like every other
//! write (`WriteOp::Users`), and go with their database when it is deleted. The client side is
//! `client::users` (`DatabaseClient::users()`), a layer above.

pub(crate) mod table;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A user (`/dbs/{db}/users/{id}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserDef {
    pub id: String,
    /// Its own number, for its `_rid` (kept when the user is renamed, as the service keeps it).
    pub number: u32,
    /// `_ts`: seconds of its last write.
    pub ts: u64,
    /// Changes with every write: the `_etag`.
    pub version: u64,
}

/// `All` (read, write, delete) or `Read` (read only), the two modes of the REST API.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PermissionMode {
    All,
    Read,
}

impl PermissionMode {
    /// `All` or `Read`, in any case (the REST docs write them capitalised).
    pub fn parse(s: &str) -> Option<PermissionMode> {
        match s.to_ascii_lowercase().as_str() {
            "all" => Some(PermissionMode::All),
            "read" => Some(PermissionMode::Read),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            PermissionMode::All => "All",
            PermissionMode::Read => "Read",
        }
    }
}

/// What a caller sets of a permission.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PermissionSpec {
    pub id: String,
    pub mode: PermissionMode,
    /// The mode as the client wrote it: the service answers it as sent (the Python SDK's
    /// constant is `all`, and its tests expect `all` back).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub mode_as_sent: String,
    /// The resource's link as given (`dbs/volcanodb/colls/volcano1`, or one of resource ids).
    pub resource: String,
    /// `resourcePartitionKey`: confines the permission to one logical partition (its JSON).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_partition_key: Option<Value>,
}

/// A stored permission (`/dbs/{db}/users/{user}/permissions/{id}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PermissionDef {
    #[serde(flatten)]
    pub spec: PermissionSpec,
    /// The owning user's number.
    pub user: u32,
    pub number: u64,
    pub ts: u64,
    pub version: u64,
}

/// A write of users or permissions (sent to the writer).
#[derive(Debug, Clone)]
pub enum UsersOp {
    CreateUser {
        database: String,
        id: String,
    },
    UpsertUser {
        database: String,
        id: String,
    },
    ReplaceUser {
        database: String,
        id: String,
        new_id: String,
    },
    DeleteUser {
        database: String,
        id: String,
    },
    CreatePermission {
        database: String,
        user: String,
        spec: PermissionSpec,
    },
    UpsertPermission {
        database: String,
        user: String,
        spec: PermissionSpec,
    },
    ReplacePermission {
        database: String,
        user: String,
        id: String,
        spec: PermissionSpec,
    },
    DeletePermission {
        database: String,
        user: String,
        id: String,
    },
}

/// What a users write answers: the written resource and whether it was created.
#[derive(Debug, Clone)]
pub enum UsersOutput {
    User(UserDef, bool),
    Permission(PermissionDef, bool),
    Deleted,
}

impl UserDef {
    /// `_rid`: the database's 4 bytes, then 4 of its own whose first byte's top bit is clear
    /// (set, they would be a collection's: `rid.rs`).
    pub fn resource_id(&self, database: u32) -> String {
        crate::rid::encode(&self.resource_bytes(database))
    }

    fn resource_bytes(&self, database: u32) -> [u8; 8] {
        let own = (self.number & 0x7f) | ((self.number >> 7) << 8);
        let mut b = [0u8; 8];
        b[..4].copy_from_slice(&crate::rid::database_bytes(database));
        b[4..].copy_from_slice(&own.to_le_bytes());
        b
    }
}

impl PermissionDef {
    /// `_rid`: its user's 8 bytes, then its own number's 8 (little-endian).
    pub fn resource_id(&self, database: u32, user: &UserDef) -> String {
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&user.resource_bytes(database));
        b[8..].copy_from_slice(&self.number.to_le_bytes());
        crate::rid::encode(&b)
    }
}
