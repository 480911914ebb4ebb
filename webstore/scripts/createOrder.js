// createOrder: 000_* and 003_* ("each time we create a new sales order document, we also need
// to increment the salesOrderCount property in the related customer document") describe it
// without printing it. Both items are in the customer's logical partition, so one procedure
// does both as one transaction: the order and the count never disagree.
// Argument: the order (type "salesOrder", customerId, details). Response: the created order.
function createOrder(order) {
  var collection = getContext().getCollection();

  if (!order || order.type !== 'salesOrder') {
    throw new Error('args[0].type must be "salesOrder"');
  }
  if (!Array.isArray(order.details) || order.details.length === 0) {
    throw new Error('args[0].details: an order needs at least one line');
  }

  collection.readDocument(
    `${collection.getAltLink()}/docs/${order.customerId}`,
    function (err, customer) {
      if (err) throw err;

      customer.salesOrderCount = (customer.salesOrderCount || 0) + 1;
      collection.replaceDocument(
        customer._self,
        customer,
        { accessCondition: { type: 'IfMatch', condition: customer._etag } },
        function (err) {
          if (err) throw err;

          collection.createDocument(
            collection.getSelfLink(),
            order,
            function (err, created) {
              if (err) throw err;
              getContext().getResponse().setBody(created);
            });
        });
    });
}
