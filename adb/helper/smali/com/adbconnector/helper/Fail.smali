.class public Lcom/adbconnector/helper/Fail;
.super Ljava/lang/RuntimeException;
.source "Fail.smali"

# A request that fails with one of the wire protocol's error codes
# (bad_request, unsupported, busy, timeout, not_found, refused, internal):
# Main turns it into an ERROR answer and the connection stays up.

.field public final code:Ljava/lang/String;

.method public constructor <init>(Ljava/lang/String;Ljava/lang/String;)V
    .registers 3
    invoke-direct {p0, p2}, Ljava/lang/RuntimeException;-><init>(Ljava/lang/String;)V
    iput-object p1, p0, Lcom/adbconnector/helper/Fail;->code:Ljava/lang/String;
    return-void
.end method

.method public static bad(Ljava/lang/String;)Lcom/adbconnector/helper/Fail;
    .registers 3
    new-instance v0, Lcom/adbconnector/helper/Fail;
    const-string v1, "bad_request"
    invoke-direct {v0, v1, p0}, Lcom/adbconnector/helper/Fail;-><init>(Ljava/lang/String;Ljava/lang/String;)V
    return-object v0
.end method
