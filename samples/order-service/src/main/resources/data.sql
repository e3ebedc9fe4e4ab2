merge into products (sku, name, stock) key (sku) values ('apple', 'Apple', 100);
merge into products (sku, name, stock) key (sku) values ('pear', 'Pear', 50);
