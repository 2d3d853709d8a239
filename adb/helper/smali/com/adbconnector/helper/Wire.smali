.class public Lcom/adbconnector/helper/Wire;
.super Ljava/lang/Object;
.source "Wire.smali"

# The protocol's strings: u32 n then n bytes of UTF-8, n <= 1 MiB.

.method public static readStr(Ljava/io/DataInputStream;)Ljava/lang/String;
    .registers 5
    invoke-virtual {p0}, Ljava/io/DataInputStream;->readInt()I
    move-result v0
    if-ltz v0, :bad
    const/high16 v1, 0x100000
    if-gt v0, v1, :bad
    # A length beyond what the request holds is a short request, not an
    # allocation: the body is already in memory.
    invoke-virtual {p0}, Ljava/io/DataInputStream;->available()I
    move-result v1
    if-gt v0, v1, :short
    new-array v1, v0, [B
    invoke-virtual {p0, v1}, Ljava/io/DataInputStream;->readFully([B)V
    new-instance v2, Ljava/lang/String;
    const-string v3, "UTF-8"
    invoke-direct {v2, v1, v3}, Ljava/lang/String;-><init>([BLjava/lang/String;)V
    return-object v2
    :short
    new-instance v1, Ljava/io/EOFException;
    invoke-direct {v1}, Ljava/io/EOFException;-><init>()V
    throw v1
    :bad
    const-string v1, "string length out of range"
    invoke-static {v1}, Lcom/adbconnector/helper/Fail;->bad(Ljava/lang/String;)Lcom/adbconnector/helper/Fail;
    move-result-object v1
    throw v1
.end method

.method public static writeStr(Ljava/io/DataOutputStream;Ljava/lang/String;)V
    .registers 5
    if-nez p1, :have
    const-string p1, ""
    :have
    const-string v0, "UTF-8"
    invoke-virtual {p1, v0}, Ljava/lang/String;->getBytes(Ljava/lang/String;)[B
    move-result-object v0
    array-length v1, v0
    invoke-virtual {p0, v1}, Ljava/io/DataOutputStream;->writeInt(I)V
    invoke-virtual {p0, v0}, Ljava/io/DataOutputStream;->write([B)V
    return-void
.end method
